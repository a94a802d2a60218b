// Command bot is the Go starter bot of the Blackout arena: it plays a uniformly random legal
// action in both games ("blackout" and "partnership-blackout"), speaking the protocol of
// docs/protocol.md (JSON lines on stdin and stdout) with the standard library only.
//
// Build and run it from this directory (bot.yaml says the same to the arena):
//
//	go build -o bot .
//	./bot
//
// Two pitfalls of Go's standard library that cost bot authors their first games:
//
//   - Output buffering. os.Stdout itself is not buffered, but writing through a bufio.Writer
//     (as here, and as most Go programs do for speed) keeps each reply in memory until the
//     buffer fills: 4096 bytes, dozens of replies. The arena waits for the reply it cannot see,
//     and the decision times out. Call Flush after every reply (see reply below).
//   - Long lines. bufio.Scanner stops at lines over 64 KiB (bufio.ErrTooLong), and an act carries
//     your whole view. Read with bufio.Reader.ReadBytes('\n') as here, or give the Scanner a
//     larger buffer (scanner.Buffer(buf, 1<<24)).
//
// Log to stderr (fmt.Fprintln(os.Stderr, ...) or the log package, whose default is stderr),
// never to stdout: any line on stdout that is not a reply is a protocol fault.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand"
	"os"
)

// message holds the fields this bot reads; every other field and message type is ignored, as
// the protocol asks. Ids and legal actions are kept as raw JSON and echoed back verbatim: an id
// is any JSON integer, and an action is an integer or a string ("QS", "pass").
type message struct {
	Type  string            `json:"type"`
	ID    json.RawMessage   `json:"id"`
	Seed  json.RawMessage   `json:"seed"`
	Legal []json.RawMessage `json:"legal"`
}

type helloReply struct {
	ID       json.RawMessage `json:"id"`
	Name     string          `json:"name"`
	Protocol int             `json:"protocol"`
}

type actReply struct {
	ID     json.RawMessage `json:"id"`
	Action json.RawMessage `json:"action"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(1))
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var msg message
			if jsonErr := json.Unmarshal(line, &msg); jsonErr != nil {
				fmt.Fprintln(os.Stderr, "random-go: not a JSON message:", jsonErr)
			} else if !handle(msg, out, &rng) {
				return
			}
		}
		if err != nil { // io.EOF: the arena closed our stdin, so we are done
			return
		}
	}
}

// handle answers one message; false when the bot should exit.
func handle(msg message, out *bufio.Writer, rng **rand.Rand) bool {
	switch msg.Type {
	case "hello":
		reply(out, helloReply{ID: msg.ID, Name: "random-go", Protocol: 1})
	case "game_start":
		// The seed may be any JSON integer, even one above 2^64: hash its digits, so the same
		// game replays the same choices whatever its size.
		hash := fnv.New64a()
		hash.Write(msg.Seed)
		*rng = rand.New(rand.NewSource(int64(hash.Sum64())))
	case "act":
		// Your decision goes here: msg.Legal is never empty, and the act's "view" holds everything
		// your seat may know (add a View field to message to read it).
		choice := msg.Legal[(*rng).Intn(len(msg.Legal))]
		reply(out, actReply{ID: msg.ID, Action: choice})
	case "quit":
		return false
	}
	return true
}

// reply writes one JSON line and flushes it at once: without the Flush the reply would wait in
// the bufio.Writer's buffer, and the arena would record a timeout.
func reply(out *bufio.Writer, value any) {
	data, err := json.Marshal(value)
	if err != nil {
		fmt.Fprintln(os.Stderr, "random-go: cannot encode the reply:", err)
		os.Exit(1)
	}
	out.Write(append(data, '\n'))
	if err := out.Flush(); err != nil { // the arena is gone: nothing left to do
		os.Exit(0)
	}
}
