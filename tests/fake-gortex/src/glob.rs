//! A small glob matcher for scenario `file_path_glob` rules: `**` crosses `/`, `*` and `?` do not.

pub fn glob_match(pattern: &str, path: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = path.chars().collect();
    matches(&p, &s)
}

fn matches(p: &[char], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some('*') if p.get(1) == Some(&'*') => {
            let mut rest = &p[2..];
            // `**/` also matches zero directories.
            if rest.first() == Some(&'/') && matches(&rest[1..], s) {
                return true;
            }
            if rest.first() == Some(&'/') {
                rest = &p[2..];
            }
            (0..=s.len()).any(|i| matches(rest, &s[i..]))
        }
        Some('*') => {
            let rest = &p[1..];
            for i in 0..=s.len() {
                if matches(rest, &s[i..]) {
                    return true;
                }
                if i < s.len() && s[i] == '/' {
                    return false;
                }
            }
            false
        }
        Some('?') => !s.is_empty() && s[0] != '/' && matches(&p[1..], &s[1..]),
        Some(c) => !s.is_empty() && s[0] == *c && matches(&p[1..], &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn stars_and_double_stars() {
        assert!(glob_match("src/*.go", "src/a.go"));
        assert!(!glob_match("src/*.go", "src/x/a.go"));
        assert!(glob_match("**/*.go", "a.go"));
        assert!(glob_match("**/*.go", "src/x/a.go"));
        assert!(glob_match("src/**", "src/x/a.go"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("*.md", "a.go"));
    }
}
