fn double(x: i32) -> i32 {
    x * 2
}

fn main() {
    let n: i32 = "four";
    let unused = 3;
    println!("{}", double(n, 1));
}
