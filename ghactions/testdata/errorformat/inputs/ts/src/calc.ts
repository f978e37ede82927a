export function add(a: number, b: number): number {
  return a + b;
}

const total: number = add(1, "2");
const label: string = total;
console.log(label.toFixed(2));
