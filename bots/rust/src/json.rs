//! A small JSON reader and writer, standard library only: enough for the arena's messages.
//!
//! Numbers are kept as the text they came as, so an `id` or a `seed` of any size (the protocol
//! allows integers above 2^64) is echoed back exactly; `as_i64` reads the small ones. Objects keep
//! their fields in order; unknown fields are simply never asked for. Strings decode every JSON
//! escape, `\uXXXX` surrogate pairs included (a lone surrogate becomes U+FFFD).

use std::fmt;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number's literal text, e.g. `17`, `-3`, `2.5e3`, `18446744073709551617`.
    Number(String),
    Str(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// Why a line is not JSON: what was wrong, and at which byte.
#[derive(Debug, PartialEq)]
pub struct ParseError {
    pub offset: usize,
    pub problem: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} at byte {}", self.problem, self.offset)
    }
}

/// Nesting deeper than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 512;

const NULL: Value = Value::Null;

impl Value {
    /// The field `key` of an object (the last one, as most readers do with a repeated key);
    /// `Null` when this is not an object or has no such field.
    pub fn get(&self, key: &str) -> &Value {
        match self {
            Value::Object(fields) => fields.iter().rev().find(|(k, _)| k == key).map_or(&NULL, |(_, v)| v),
            _ => &NULL,
        }
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(text) => Some(text),
            _ => None,
        }
    }

    /// The integer, when this is a number written as an integer that fits an i64.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    /// The elements, when this is an array (none otherwise).
    pub fn as_array(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            _ => &[],
        }
    }

    /// Whether this is `true`.
    pub fn is_true(&self) -> bool {
        *self == Value::Bool(true)
    }

    /// Appends the compact JSON text of this value to `out` (no newline, so it fits on one line).
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(text) => out.push_str(text),
            Value::Str(text) => write_string(text, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Value::Object(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Appends `text` as a JSON string: quotes, backslashes and control characters escaped.
pub fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Parses one JSON text (surrounding whitespace allowed, nothing else after the value).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut parser = Parser { bytes: text.as_bytes(), at: 0 };
    let value = parser.value(0)?;
    parser.skip_space();
    if parser.at != parser.bytes.len() {
        return Err(parser.error("text after the value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, problem: &'static str) -> ParseError {
        ParseError { offset: self.at, problem }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect_word(&mut self, word: &'static str, value: Value) -> Result<Value, ParseError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("not a JSON value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.skip_space();
        match self.peek() {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.expect_word("true", Value::Bool(true)),
            Some(b'f') => self.expect_word("false", Value::Bool(false)),
            Some(b'n') => self.expect_word("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("not a JSON value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.at += 1; // '{'
        let mut fields = Vec::new();
        self.skip_space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(fields));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a field name"));
            }
            let key = self.string()?;
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':'"));
            }
            self.at += 1;
            let value = self.value(depth + 1)?;
            fields.push((key, value));
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(fields));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.at += 1; // '['
        let mut items = Vec::new();
        self.skip_space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error("a number needs a digit")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit must follow the decimal point"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error("a digit must follow the exponent"));
            }
            self.digits();
        }
        // Only ASCII was consumed, so this slice is valid UTF-8.
        let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII digits");
        Ok(Value::Number(text.to_string()))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.at += 1; // the opening quote
        let mut out = String::new();
        loop {
            // Copy the run of plain characters up to the next quote or backslash in one piece.
            let start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The input is a &str and the run stops only at ASCII bytes: a valid UTF-8 slice.
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).expect("UTF-8 input"));
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.error("a control character inside a string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let b = match self.peek() {
            Some(b) => b,
            None => return Err(self.error("unterminated string")),
        };
        self.at += 1;
        match b {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let unit = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate: a low one must follow as another \u escape.
                    if self.bytes[self.at..].starts_with(b"\\u") {
                        let saved = self.at;
                        self.at += 2;
                        let low = self.hex4()?;
                        if (0xDC00..0xE000).contains(&low) {
                            0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            self.at = saved; // not a pair: that escape stands on its own
                            0xFFFD
                        }
                    } else {
                        0xFFFD
                    }
                } else {
                    unit
                };
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            _ => return Err(self.error("an unknown escape")),
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or_else(|| self.error("a short \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("a bad \\u escape"))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("a bad \\u escape"));
        }
        self.at += 4;
        Ok(u32::from_str_radix(text, 16).expect("four hex digits"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value) -> String {
        let mut out = String::new();
        value.write(&mut out);
        out
    }

    #[test]
    fn reads_nested_objects_and_arrays_and_skips_unknown_fields() {
        let v = parse(r#" {"type":"act","x":{"a":[1,{"b":null}],"c":true},"legal":[3,"pass"],"id":7} "#).unwrap();
        assert_eq!(v.get("type").as_str(), Some("act"));
        assert_eq!(v.get("id").as_i64(), Some(7));
        assert_eq!(v.get("legal").as_array().len(), 2);
        assert_eq!(v.get("x").get("a").as_array()[1].get("b"), &Value::Null);
        assert_eq!(v.get("missing"), &Value::Null);
        assert!(v.get("x").get("c").is_true());
    }

    #[test]
    fn decodes_every_escape_and_surrogate_pairs() {
        let v = parse(r#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83c\udca1\ud800x\udc00""#).unwrap();
        assert_eq!(v.as_str(), Some("a\"b\\c/d\u{8}\u{c}\n\r\té\u{1F0A1}\u{FFFD}x\u{FFFD}"));
        assert_eq!(parse("\"snow \u{2603} man\"").unwrap().as_str(), Some("snow \u{2603} man"));
    }

    #[test]
    fn keeps_large_numbers_as_written() {
        let v = parse(r#"{"seed":340282366920938463463374607431768211457,"f":-2.5e-3}"#).unwrap();
        assert_eq!(text(v.get("seed")), "340282366920938463463374607431768211457");
        assert_eq!(v.get("seed").as_i64(), None);
        assert_eq!(text(v.get("f")), "-2.5e-3");
    }

    #[test]
    fn writes_strings_escaped_on_one_line() {
        let v = Value::Object(vec![("name".into(), Value::Str("a\"b\\c\nd\u{1}".into()))]);
        assert_eq!(text(&v), r#"{"name":"a\"b\\c\nd\u0001"}"#);
        assert_eq!(parse(&text(&v)).unwrap(), v);
    }

    #[test]
    fn refuses_what_is_not_json() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"abc", "\"\\x\"", "tru", "{} x",
                    "\"\\ud83c\\u12\"", "\"tab\there\""] {
            assert!(parse(bad).is_err(), "{:?} parsed", bad);
        }
        let deep = "[".repeat(MAX_DEPTH + 2) + &"]".repeat(MAX_DEPTH + 2);
        assert_eq!(parse(&deep).unwrap_err().problem, "nested too deeply");
    }
}
