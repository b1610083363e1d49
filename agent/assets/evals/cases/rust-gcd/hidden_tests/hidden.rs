use numtheory::{add, gcd, lcm};

#[test]
fn gcd_cases() {
    assert_eq!(gcd(0, 0), 0);
    assert_eq!(gcd(7, 0), 7);
    assert_eq!(gcd(0, 7), 7);
    assert_eq!(gcd(12, 18), 6);
    assert_eq!(gcd(17, 5), 1);
}

#[test]
fn lcm_cases() {
    assert_eq!(lcm(0, 5), 0);
    assert_eq!(lcm(4, 6), 12);
    assert_eq!(lcm(1 << 40, 1 << 41), 1 << 41);
    assert_eq!(add(1, 1), 2);
}
