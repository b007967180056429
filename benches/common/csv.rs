//! CSV fields for the files the benches write (`results.csv`, `iter.csv`, `scaling.csv`): a
//! name that holds a comma ("quicksort 10M u64, sequential partitions") is quoted, as RFC 4180
//! has it, so that every line of a file has the same number of fields.
//!
//! Included by path from each bench that writes a CSV.
#![allow(dead_code)]

/// `text` as one CSV field: quoted, with inner quotes doubled, if it holds a comma, a quote
/// or a line break; as it is otherwise.
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The text of a field written by [`field`] (or of an unquoted one).
pub fn unquote(field: &str) -> String {
    match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
        Some(inner) => inner.replace("\"\"", "\""),
        None => field.to_string(),
    }
}
