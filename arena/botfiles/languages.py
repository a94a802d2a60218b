"""The languages a contest meets: for each, the programs that build and run it, how to install
them, and a tiny bot in it (``LANGUAGES``).

The tiny bot answers ``hello`` and every ``act`` with the first legal action and exits on
``quit``, reading the few fields it needs out of the line (no JSON library: one fewer thing to
install). ``arena languages`` builds and starts each one found here in the sandbox
(``arena.checkbot.languages``); the tests take each through ``check-bot --sandbox bwrap``; and
``arena.botfiles.configuration`` looks at each runtime's programs for the configuration the
sandbox must show.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """One language: the programs it needs (each a tuple of the names it may have, the first on
    PATH used), its tiny bot's files, and the commands that build and run it, whose ``{0}``,
    ``{1}`` name those programs."""

    key: str
    """Its short name: ``csharp``, ``cpp``."""
    name: str
    """As people call it: ``C# (Mono)``."""
    programs: tuple[tuple[str, ...], ...]
    install: str
    """How to get its programs on Debian or Ubuntu."""
    files: tuple[tuple[str, str], ...]
    """The tiny bot: (file name, text) pairs."""
    run: tuple[str, ...]
    build: tuple[str, ...] | None = None

    def found(self, path: str | None = None) -> tuple[str, ...] | None:
        """The names of its programs as found on ``path`` (default: PATH), or None when one is
        missing."""
        names = []
        for choices in self.programs:
            name = next((each for each in choices if shutil.which(each, path=path)), None)
            if name is None:
                return None
            names.append(name)
        return tuple(names)

    def commands(self, names: tuple[str, ...]) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        """The build command (None: none) and the run command, with the programs ``names``."""
        def filled(words: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(word.format(*names) for word in words)

        return (None if self.build is None else filled(self.build)), filled(self.run)

    def manifest(self, names: tuple[str, ...]) -> str:
        """The tiny bot's ``bot.yaml`` with the programs ``names``."""
        build, run = self.commands(names)
        lines = [f"name: tiny-{self.key}", f"language: {self.key}", f"run: {_flow_list(run)}"]
        if build is not None:
            lines.append(f"build: {_flow_list(build)}")
        return "\n".join(lines) + "\n"


def _flow_list(words: tuple[str, ...]) -> str:
    """``words`` as a YAML flow list of double-quoted strings."""
    quoted = ('"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"' for word in words)
    return f"[{', '.join(quoted)}]"


def runtime_programs() -> tuple[str, ...]:
    """Every name a language's program may have, in ``LANGUAGES`` order."""
    return tuple(dict.fromkeys(name for language in LANGUAGES for choices in language.programs
                               for name in choices))


_C = r"""/* A tiny bot: the first legal action, always. */
#include <stdio.h>
#include <string.h>

static void field(const char *line, const char *key, const char *ends, char *out, size_t size) {
    const char *start = strstr(line, key);
    size_t length = 0;
    if (start != NULL) {
        start += strlen(key);
        length = strcspn(start, ends);
        if (length >= size) length = size - 1;
        memcpy(out, start, length);
    }
    out[length] = '\0';
}

int main(void) {
    static char line[1 << 20];
    char type[64], id[64], action[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        field(line, "\"type\":\"", "\"", type, sizeof type);
        field(line, "\"id\":", ",}", id, sizeof id);
        if (strcmp(type, "hello") == 0) {
            printf("{\"id\":%s,\"name\":\"tiny-c\",\"protocol\":1}\n", id);
        } else if (strcmp(type, "act") == 0) {
            field(line, "\"legal\":[", ",]", action, sizeof action);
            printf("{\"id\":%s,\"action\":%s}\n", id, action);
        } else if (strcmp(type, "quit") == 0) {
            break;
        }
        fflush(stdout);
    }
    return 0;
}
"""

_CPP = r"""// A tiny bot: the first legal action, always.
#include <iostream>
#include <string>

static std::string field(const std::string &line, const std::string &key, const char *ends) {
    std::string::size_type start = line.find(key);
    if (start == std::string::npos) return "";
    start += key.size();
    return line.substr(start, line.find_first_of(ends, start) - start);
}

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        std::string type = field(line, "\"type\":\"", "\""), id = field(line, "\"id\":", ",}");
        if (type == "hello") {
            std::cout << "{\"id\":" << id << ",\"name\":\"tiny-cpp\",\"protocol\":1}" << std::endl;
        } else if (type == "act") {
            std::cout << "{\"id\":" << id << ",\"action\":" << field(line, "\"legal\":[", ",]")
                      << "}" << std::endl;  // endl flushes
        } else if (type == "quit") {
            break;
        }
    }
}
"""

_CSHARP = r"""// A tiny bot: the first legal action, always.
using System;
using System.IO;

class Bot {
    static string Field(string line, string key, string ends) {
        int start = line.IndexOf(key, StringComparison.Ordinal);
        if (start < 0) return "";
        start += key.Length;
        int end = line.IndexOfAny(ends.ToCharArray(), start);
        return line.Substring(start, (end < 0 ? line.Length : end) - start);
    }

    static void Main() {
        var input = new StreamReader(Console.OpenStandardInput());
        var output = new StreamWriter(Console.OpenStandardOutput());
        string line;
        while ((line = input.ReadLine()) != null) {
            string type = Field(line, "\"type\":\"", "\""), id = Field(line, "\"id\":", ",}");
            if (type == "hello") {
                output.Write("{\"id\":" + id + ",\"name\":\"tiny-csharp\",\"protocol\":1}\n");
            } else if (type == "act") {
                output.Write("{\"id\":" + id + ",\"action\":" + Field(line, "\"legal\":[", ",]") + "}\n");
            } else if (type == "quit") {
                break;
            }
            output.Flush();
        }
    }
}
"""

_JAVA = r"""// A tiny bot: the first legal action, always.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Bot {
    static String field(String line, String key, String ends) {
        int start = line.indexOf(key);
        if (start < 0) return "";
        start += key.length();
        int end = start;
        while (end < line.length() && ends.indexOf(line.charAt(end)) < 0) end++;
        return line.substring(start, end);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String type = field(line, "\"type\":\"", "\""), id = field(line, "\"id\":", ",}");
            if (type.equals("hello")) {
                System.out.print("{\"id\":" + id + ",\"name\":\"tiny-java\",\"protocol\":1}\n");
            } else if (type.equals("act")) {
                System.out.print("{\"id\":" + id + ",\"action\":" + field(line, "\"legal\":[", ",]") + "}\n");
            } else if (type.equals("quit")) {
                break;
            }
            System.out.flush();
        }
    }
}
"""

_GO = r"""// A tiny bot: the first legal action, always.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func field(line, key, ends string) string {
	start := strings.Index(line, key)
	if start < 0 {
		return ""
	}
	rest := line[start+len(key):]
	if end := strings.IndexAny(rest, ends); end >= 0 {
		return rest[:end]
	}
	return rest
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		id := field(line, `"id":`, ",}")
		switch field(line, `"type":"`, `"`) {
		case "hello":
			fmt.Printf("{\"id\":%s,\"name\":\"tiny-go\",\"protocol\":1}\n", id)
		case "act":
			fmt.Printf("{\"id\":%s,\"action\":%s}\n", id, field(line, `"legal":[`, ",]"))
		case "quit":
			return
		}
	}
}
"""

_RUST = r"""// A tiny bot: the first legal action, always.
use std::io::{self, BufRead, Write};

fn field<'a>(line: &'a str, key: &str, ends: &[char]) -> &'a str {
    match line.find(key) {
        None => "",
        Some(start) => {
            let rest = &line[start + key.len()..];
            &rest[..rest.find(ends).unwrap_or(rest.len())]
        }
    }
}

fn main() {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in io::stdin().lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let id = field(&line, "\"id\":", &[',', '}']);
        let written = match field(&line, "\"type\":\"", &['"']) {
            "hello" => writeln!(out, "{{\"id\":{},\"name\":\"tiny-rust\",\"protocol\":1}}", id),
            "act" => writeln!(out, "{{\"id\":{},\"action\":{}}}", id,
                              field(&line, "\"legal\":[", &[',', ']'])),
            "quit" => break,
            _ => Ok(()),
        };
        if written.and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
"""

_PYTHON = r"""# A tiny bot: the first legal action, always.
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        print(json.dumps({"id": message["id"], "name": "tiny-python", "protocol": 1}), flush=True)
    elif message.get("type") == "act":
        print(json.dumps({"id": message["id"], "action": message["legal"][0]}), flush=True)
    elif message.get("type") == "quit":
        break
"""

_JAVASCRIPT = r"""// A tiny bot: the first legal action, always.
const lines = require("readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    process.stdout.write(JSON.stringify({ id: message.id, name: "tiny-js", protocol: 1 }) + "\n");
  } else if (message.type === "act") {
    process.stdout.write(JSON.stringify({ id: message.id, action: message.legal[0] }) + "\n");
  } else if (message.type === "quit") {
    process.exit(0);
  }
});
"""

_RUBY = r"""# A tiny bot: the first legal action, always.
$stdout.sync = true
$stdin.each_line do |line|
  id = line[/"id":([^,}]*)/, 1]
  case line[/"type":"([^"]*)"/, 1]
  when "hello" then puts %({"id":#{id},"name":"tiny-ruby","protocol":1})
  when "act" then puts %({"id":#{id},"action":#{line[/"legal":\[([^,\]]*)/, 1]}})
  when "quit" then break
  end
end
"""

_PHP = r"""<?php
// A tiny bot: the first legal action, always.
while (($line = fgets(STDIN)) !== false) {
    $type = preg_match('/"type":"([^"]*)"/', $line, $found) ? $found[1] : '';
    $id = preg_match('/"id":([^,}]*)/', $line, $found) ? $found[1] : '';
    if ($type === 'hello') {
        fwrite(STDOUT, '{"id":' . $id . ',"name":"tiny-php","protocol":1}' . "\n");
    } elseif ($type === 'act') {
        preg_match('/"legal":\[([^,\]]*)/', $line, $found);
        fwrite(STDOUT, '{"id":' . $id . ',"action":' . $found[1] . "}\n");
    } elseif ($type === 'quit') {
        break;
    }
    fflush(STDOUT);
}
"""

_LUA = r"""-- A tiny bot: the first legal action, always.
for line in io.lines() do
  local kind = line:match('"type":"([^"]*)"')
  local id = line:match('"id":([^,}]*)')
  if kind == "hello" then
    io.write('{"id":', id, ',"name":"tiny-lua","protocol":1}\n')
  elseif kind == "act" then
    io.write('{"id":', id, ',"action":', line:match('"legal":%[([^,%]]*)'), '}\n')
  elseif kind == "quit" then
    break
  end
  io.stdout:flush()
end
"""

_PERL = r"""# A tiny bot: the first legal action, always.
use strict;
use warnings;

$| = 1;
while (my $line = <STDIN>) {
    my ($type) = $line =~ /"type":"([^"]*)"/;
    my ($id) = $line =~ /"id":([^,}]*)/;
    next unless defined $type;
    if ($type eq 'hello') {
        print qq({"id":$id,"name":"tiny-perl","protocol":1}\n);
    } elsif ($type eq 'act') {
        my ($first) = $line =~ /"legal":\[([^,\]]*)/;
        print qq({"id":$id,"action":$first}\n);
    } elsif ($type eq 'quit') {
        last;
    }
}
"""

LANGUAGES: tuple[Language, ...] = (
    Language("c", "C", (("cc", "gcc", "clang"),), "apt-get install gcc",
             (("bot.c", _C),), ("./bot",), ("{0}", "-O2", "-o", "bot", "bot.c")),
    Language("cpp", "C++", (("c++", "g++", "clang++"),), "apt-get install g++",
             (("bot.cpp", _CPP),), ("./bot",), ("{0}", "-O2", "-o", "bot", "bot.cpp")),
    Language("csharp", "C# (Mono)", (("mcs",), ("mono",)), "apt-get install mono-mcs",
             (("Bot.cs", _CSHARP),), ("{1}", "Bot.exe"), ("{0}", "-out:Bot.exe", "Bot.cs")),
    Language("java", "Java", (("javac",), ("java",)), "apt-get install default-jdk-headless",
             (("Bot.java", _JAVA),), ("{1}", "-cp", ".", "Bot"), ("{0}", "-d", ".", "Bot.java")),
    # A sandboxed build has no writable home for Go's caches (docs/protocol.md, For Go authors).
    Language("go", "Go", (("go",),), "apt-get install golang-go",
             (("bot.go", _GO),), ("./bot",),
             ("sh", "-c", "GOCACHE=/tmp/gocache GOPATH=/tmp/gopath GOFLAGS=-buildvcs=false "
                          "{0} build -o bot bot.go")),
    Language("rust", "Rust", (("rustc",),), "apt-get install rustc (or rustup)",
             (("bot.rs", _RUST),), ("./bot",), ("{0}", "-O", "-o", "bot", "bot.rs")),
    Language("python", "Python", (("python3",),), "apt-get install python3",
             (("bot.py", _PYTHON),), ("{0}", "bot.py")),
    Language("pypy", "PyPy", (("pypy3",),), "apt-get install pypy3",
             (("bot.py", _PYTHON),), ("{0}", "bot.py")),
    Language("javascript", "JavaScript (Node.js)", (("node", "nodejs"),), "apt-get install nodejs",
             (("bot.js", _JAVASCRIPT),), ("{0}", "bot.js")),
    Language("ruby", "Ruby", (("ruby",),), "apt-get install ruby",
             (("bot.rb", _RUBY),), ("{0}", "bot.rb")),
    Language("php", "PHP", (("php",),), "apt-get install php-cli",
             (("bot.php", _PHP),), ("{0}", "bot.php")),
    Language("lua", "Lua", (("lua5.4", "lua"),), "apt-get install lua5.4",
             (("bot.lua", _LUA),), ("{0}", "bot.lua")),
    Language("perl", "Perl", (("perl",),), "apt-get install perl",
             (("bot.pl", _PERL),), ("{0}", "bot.pl")),
)
"""Every language ``arena languages`` knows, in the order it lists them."""


def language_named(key: str) -> Language | None:
    """The language whose ``key`` is ``key``, or None."""
    return next((language for language in LANGUAGES if language.key == key), None)
