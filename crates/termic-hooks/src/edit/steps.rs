//! The edit loop shared by every shape: parse, find the next single change,
//! splice it, repeat until nothing is left to do. Re-parsing after each
//! change keeps every step simple and every range fresh; config files are
//! small.

use super::doc;
use super::layout::{Splice, Style};
use super::{Edit, EditError, EventHandler, InstallRecord};

/// Bounds the loop; each step changes one thing, so real files need a few.
const MAX_STEPS: usize = 10_000;

/// The state after the loop, before it becomes an [`Edit`].
pub(crate) struct Stepped<'t> {
    input: Option<&'t str>,
    bom: &'static str,
    pub body: String,
    changed: bool,
    pub record: InstallRecord,
}

/// Runs `step` until it returns `None`. A missing file starts as `{}` in
/// termic's own style and is marked as created in the record.
pub(crate) fn run<'t>(
    text: Option<&'t str>,
    record: &InstallRecord,
    mut step: impl FnMut(&str, &Style, &mut InstallRecord) -> Result<Option<Splice>, EditError>,
) -> Result<Stepped<'t>, EditError> {
    let mut record = record.clone();
    let (bom, original, style) = match text {
        Some(text) => {
            let framed = doc::split_bom(text);
            let root = doc::parse_root(framed.body)?;
            let style = Style::detect(framed.body, &root);
            let bom = if framed.bom.is_empty() {
                ""
            } else {
                "\u{feff}"
            };
            (bom, framed.body.to_string(), style)
        }
        None => {
            record = InstallRecord {
                created_file: true,
                ..InstallRecord::default()
            };
            ("", "{}".to_string(), Style::fresh())
        }
    };
    let mut body = original.clone();
    for _ in 0..MAX_STEPS {
        match step(&body, &style, &mut record)? {
            Some(splice) => splice.apply(&mut body),
            None => {
                doc::check_output(&body)?;
                let changed = body != original;
                if text.is_none() && changed {
                    body.push('\n');
                }
                return Ok(Stepped {
                    input: text,
                    bom,
                    body,
                    changed,
                    record,
                });
            }
        }
    }
    Err(EditError::Internal(format!(
        "the edit did not settle after {MAX_STEPS} steps"
    )))
}

impl Stepped<'_> {
    pub fn into_edit(self, left_alone: Vec<EventHandler>) -> Edit {
        let delete_file = self.record.created_file
            && doc::parse_root(&self.body).is_ok_and(|root| root.properties.is_empty());
        let text = match (self.changed, self.input) {
            (false, Some(input)) => input.to_string(),
            (false, None) => String::new(),
            (true, _) => format!("{}{}", self.bom, self.body),
        };
        Edit {
            text,
            changed: self.changed,
            record: self.record,
            delete_file,
            left_alone,
        }
    }
}
