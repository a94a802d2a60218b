//! The Rust starter bot of the Blackout arena: a card-counting heuristic (the Python greedy
//! bot's, see `strategy.rs`) for both games ("blackout" and "partnership-blackout"), speaking the
//! protocol of docs/protocol.md (JSON lines on stdin and stdout) with the standard library only:
//! no crates, since a sandboxed build has no network; `json.rs` reads and writes the messages.
//!
//! Build and run it from this directory (bot.yaml says the same to the arena):
//!
//! ```text
//! cargo build --release --offline
//! ./target/release/greedy-rust
//! ```
//!
//! Two pitfalls of Rust's standard library that cost bot authors their first games:
//!
//! - Output buffering. `std::io::stdout()` (and its `lock()`) is a `LineWriter`: it writes out
//!   what it holds at each `'\n'`, so `println!` replies reach the arena (today; the standard
//!   library documents line buffering only for a terminal). But a `BufWriter` around it, as here
//!   and as most Rust programs do for speed, keeps every reply in its 8 KiB buffer until it fills:
//!   dozens of replies. The arena waits for the reply it cannot see, and the decision times out.
//!   Call `flush()` after every reply (see `reply` below); a `BufWriter` dropped at exit flushes,
//!   but by then the game is lost.
//! - Reading. `stdin.lock().lines()` stops the bot at the first line that is not UTF-8 (an
//!   `Err`), and `read_line` allocates a new `String` each time if you do not reuse it. Read with
//!   `read_until(b'\n', &mut buffer)` into one buffer, as here: lines of any length, end of input
//!   as `Ok(0)`.
//!
//! Log to stderr (`eprintln!`), never to stdout: any line on stdout that is not a reply is a
//! protocol fault.

mod cards;
mod json;
mod strategy;
mod view;

use std::io::{self, BufRead, BufWriter, Write};
use std::panic;
use std::process;

use json::Value;

const NAME: &str = "greedy-rust";

fn main() {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    // Locked once for the whole run (not once per `println!`), and buffered: fast, but only
    // because `reply` flushes after every line.
    let mut out = BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return, // end of input: the arena closed our stdin, so we are done
            Ok(_) => {}
            Err(error) => {
                eprintln!("{}: cannot read stdin: {}", NAME, error);
                return;
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim(); // the newline, and a "\r" before it
        if text.is_empty() {
            continue;
        }
        match json::parse(text) {
            Ok(message) => {
                if !handle(&message, &mut out) {
                    return;
                }
            }
            Err(error) => eprintln!("{}: not a JSON message: {}", NAME, error),
        }
    }
}

/// Answers one message; false when the bot should exit.
fn handle(message: &Value, out: &mut impl Write) -> bool {
    match message.get("type").as_str() {
        Some("hello") => {
            let mut text = String::from("{\"id\":");
            message.get("id").write(&mut text);
            text.push_str(",\"name\":");
            json::write_string(NAME, &mut text);
            text.push_str(",\"protocol\":1}");
            reply(out, text);
        }
        Some("act") => {
            let legal = message.get("legal").as_array();
            if legal.is_empty() {
                eprintln!("{}: an act without legal actions", NAME);
                return true;
            }
            let kind = message.get("kind").as_str().unwrap_or("");
            let view = message.get("view");
            // A bug in a decision must not cost the game: an error or a panic (whose message the
            // default hook prints to stderr) falls back to the first legal action.
            let choice = match panic::catch_unwind(|| strategy::decide(kind, view, legal)) {
                Ok(Ok(index)) if index < legal.len() => index,
                Ok(Ok(index)) => {
                    eprintln!("{}: chose action {} of {}; playing the first", NAME, index, legal.len());
                    0
                }
                Ok(Err(reason)) => {
                    eprintln!("{}: {}; playing the first legal action", NAME, reason);
                    0
                }
                Err(_) => {
                    eprintln!("{}: the decision panicked; playing the first legal action", NAME);
                    0
                }
            };
            let mut text = String::from("{\"id\":");
            message.get("id").write(&mut text);
            text.push_str(",\"action\":");
            legal[choice].write(&mut text); // the legal element verbatim: an integer or a string
            text.push('}');
            reply(out, text);
        }
        Some("quit") => return false,
        // game_start, deal_start, event, game_end and any type we do not know: every act
        // carries the whole view, so this bot keeps no state and needs none of them.
        _ => {}
    }
    true
}

/// Writes one reply line and flushes it at once: without the flush the reply would wait in the
/// `BufWriter`, and the arena would record a timeout.
fn reply(out: &mut impl Write, mut text: String) {
    text.push('\n');
    if out.write_all(text.as_bytes()).and_then(|_| out.flush()).is_err() {
        process::exit(0); // the arena is gone: nothing left to do
    }
}
