function total(items) {
  let sum = 0;
  const unused = 1;
  for (const i of items) {
    if (i == null) continue;
    sum += i;
  }
  console.log(sum);
  return summ;
}
module.exports = { total };
