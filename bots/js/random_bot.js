#!/usr/bin/env node
// Random starter bot (Node.js, no npm dependencies): answers every decision with a uniformly
// random element of the arena's `legal` list, so it plays both "blackout" and
// "partnership-blackout". The generator (mulberry32) is re-seeded from `game_start.seed` at the
// start of every game, so replaying a tournament replays this bot's choices too.
//
// Run: node bots/js/random_bot.js   (see bots/js/README.md)
"use strict";

const readline = require("readline");

const NAME = "random-js";

// mulberry32: a tiny 32-bit generator; returns a function giving floats in [0, 1).
function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fold any JSON integer (the seed may not fit in 32 bits) into a 32-bit seed, deterministically.
function seed32(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return 0;
  let big = BigInt(Math.trunc(value));
  if (big < 0n) big = -big;
  let folded = 0n;
  while (big > 0n) {
    folded ^= big & 0xffffffffn;
    big >>= 32n;
  }
  return Number(folded);
}

function send(message) {
  // Pipes are written synchronously on Linux, so the reply is out before we read on.
  process.stdout.write(JSON.stringify(message) + "\n");
}

let random = mulberry32(0);

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ id: message.id, name: NAME, protocol: 1 });
      break;
    case "game_start":
      random = mulberry32(seed32(message.seed));
      break;
    case "act": {
      const legal = message.legal;
      send({ id: message.id, action: legal[Math.floor(random() * legal.length)] });
      break;
    }
    case "quit":
      process.exit(0);
      break;
    default:
      // deal_start, event, game_end and any message type we do not know: information only.
      break;
  }
});

input.on("close", () => process.exit(0)); // EOF: the arena closed our stdin
