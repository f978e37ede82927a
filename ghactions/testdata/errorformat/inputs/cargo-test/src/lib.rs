pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

pub fn parse(s: &str) -> i32 {
    s.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn parses() {
        assert_eq!(parse("x"), 1, "parse of junk");
    }
}
