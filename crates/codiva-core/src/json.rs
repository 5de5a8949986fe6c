//! Reading agents' JSON leniently: a string or a list where the agent put one, nothing where it
//! did not (a missing member, or one of another type). The Codex and ACP translators read their
//! agents' messages with these.

use serde_json::Value;

/// The string at JSON pointer `pointer` (`/content/text`) of `value`.
pub fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// The string member `key` of `value`.
pub fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The items of the array member `key` of `value`; none when it is missing or not an array.
pub fn items<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    array_items(value.get(key))
}

/// The items of `value` when it is an array; none when it is not, or not there.
pub fn array_items(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    value.and_then(Value::as_array).into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_is_not_there_or_of_another_type_is_none() {
        let value = json!({"a": {"b": "x"}, "n": 1, "list": [1, "two"], "text": "t"});
        assert_eq!(str_at(&value, "/a/b"), Some("x"));
        assert_eq!(str_at(&value, "/n"), None);
        assert_eq!(str_at(&value, "/missing"), None);
        assert_eq!(str_field(&value, "text"), Some("t"));
        assert_eq!(str_field(&value, "a"), None);
        assert_eq!(items(&value, "list").count(), 2);
        assert_eq!(items(&value, "text").count(), 0);
        assert_eq!(items(&value, "missing").count(), 0);
        assert_eq!(array_items(value.get("list")).count(), 2);
        assert_eq!(array_items(None).count(), 0);
    }
}
