//! A TASK argument to one task: a number (digits) that a task has, else a
//! name that exactly one task has. An ambiguous name is an error that lists the
//! matches, so a script never acts on the wrong task.

use super::protocol::TaskRow;
use crate::printed::clean_line;

/// The number of the task `query` names (pure).
pub fn resolve(query: &str, rows: &[TaskRow]) -> Result<u64, String> {
    if let Ok(id) = query.parse::<u64>() {
        if rows.iter().any(|r| r.id == id) {
            return Ok(id);
        }
    }
    let matches: Vec<&TaskRow> = rows.iter().filter(|r| r.name == query).collect();
    match matches.as_slice() {
        [one] => Ok(one.id),
        [] => Err(format!(
            "no task is named or numbered \"{}\"; `termic ls` lists the tasks",
            clean_line(query)
        )),
        many => {
            let list: Vec<String> = many
                .iter()
                .map(|r| format!("{} ({}, {})", r.id, r.agent, r.state))
                .collect();
            Err(format!(
                "{} tasks are named \"{}\": numbers {}; give the number instead",
                many.len(),
                clean_line(query),
                list.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, name: &str) -> TaskRow {
        TaskRow::for_test(id, name, "claude", "working")
    }

    #[test]
    fn a_number_or_a_unique_name_resolves() {
        let rows = [row(1, "api"), row(2, "web"), row(3, "web")];
        assert_eq!(resolve("1", &rows), Ok(1));
        assert_eq!(resolve("api", &rows), Ok(1));
        assert_eq!(resolve("3", &rows), Ok(3));
    }

    #[test]
    fn an_ambiguous_name_lists_the_matches() {
        let rows = [row(1, "api"), row(2, "web"), row(3, "web")];
        let err = resolve("web", &rows).unwrap_err();
        assert!(err.contains("2 tasks are named \"web\""), "{err}");
        assert!(
            err.contains("2 (claude, working)") && err.contains("3 (claude"),
            "{err}"
        );
    }

    #[test]
    fn a_task_named_like_a_missing_number_is_found_by_name() {
        let rows = [row(1, "42")];
        assert_eq!(resolve("42", &rows), Ok(1));
        let err = resolve("nope", &rows).unwrap_err();
        assert!(err.contains("termic ls"), "{err}");
    }
}
