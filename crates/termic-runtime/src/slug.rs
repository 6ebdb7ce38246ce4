//! One rule for turning a task's name into a file or branch name, shared
//! by recordings (here) and worktrees (the binary's `worktree`).

/// A name usable as a directory and a git branch component: letters, digits,
/// `.`, `_` and `-`; anything else becomes `-`. Never empty, never starts
/// with `.` or `-`, no `..`, no `.lock` ending.
pub fn slug(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("..") {
        s = s.replace("..", ".");
    }
    let s = s
        .trim_start_matches(['.', '-'])
        .trim_end_matches(['.', '-']);
    let s = s.strip_suffix(".lock").unwrap_or(s);
    if s.is_empty() {
        "task".to_owned()
    } else {
        s.chars().take(60).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_directory_and_branch_names() {
        assert_eq!(slug("fix the bug"), "fix-the-bug");
        assert_eq!(slug("../../etc"), "etc");
        assert_eq!(slug("a..b"), "a.b");
        assert_eq!(slug("-x-"), "x");
        assert_eq!(slug("name.lock"), "name");
        assert_eq!(slug("ünï"), "n");
        assert_eq!(slug("///"), "task");
        assert_eq!(slug(&"x".repeat(100)).len(), 60);
    }
}
