// A JavaScript oracle for the model's numerics (tests/test_js_oracle.py), its estimator
// (tests/test_js_estimator.py) and the scenario loader's optional fields (tests/test_js_store.py).
//
// Reads one JSON array of requests per line on stdin and answers one JSON array of results per line.
// A request is [op, ...args]. Doubles travel as strings ("NaN", "-0", "1e+21", ...), and inside a
// value to stringify as {"$f": "<double>"}, so that NaN, the infinities and -0 survive JSON.
// Strings travel as JSON strings: lone surrogates as \udXXX escapes, which JSON.parse keeps as lone
// units and well-formed JSON.stringify writes back the same way.

import { createInterface } from 'node:readline';

import {
  calibrate,
  defaultEstimate,
  fallbackEstimate,
  jsonEstimate,
  textOnlyEstimate,
  pricingOf,
  rawPrice,
  storeEstimate,
} from './js_estimator.mjs';
import { readStore } from './js_store.mjs';

const num = (s) => Number(s);
const out = (x) => (Object.is(x, -0) ? '-0' : String(x));
const revive = (key, value) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.$f === 'string'
    ? Number(value.$f)
    : value;
const literal = (s) => new RegExp(s.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&'), 'g');

// The cut of the TypeScript's message cap: one unit earlier when the unit at the cut is a low surrogate.
function cutBefore(s, end) {
  if (end >= s.length) return s;
  const unit = s.charCodeAt(end);
  return s.slice(0, unit >= 0xdc00 && unit <= 0xdfff ? end - 1 : end);
}

// The judges' budget arithmetic (docs/model.md, Config and budget), written from the contract's words: the grace
// limit floor((max - reserve) * (1 + max(0, g))), and the smallest integer budget B >= 0 whose limit
// floor(B * (1 + max(0, g))) reaches a price, found by bisection (null when the price or the ratio is not
// finite, or the price reaches 2**53).
function graceLimit(maxTokens, reserve, g) {
  return Math.floor((maxTokens - reserve) * (1 + Math.max(0, g)));
}

function budgetFor(price, g) {
  const factor = 1 + Math.max(0, g);
  if (!Number.isFinite(price) || !Number.isFinite(factor) || price >= 2 ** 53) return null;
  const reaches = (b) => Math.floor(b * factor) >= price;
  let low = 0;
  let high = Math.max(1, Math.ceil(price));
  if (reaches(low)) return low;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (reaches(mid)) high = mid;
    else low = mid;
  }
  return high;
}

// The positioned question as four chained replaces with replacement strings.
function header(template, id, level, first, last) {
  let text = template;
  for (const [name, value] of [['id', id], ['level', String(num(level))], ['first', first], ['last', last]]) {
    text = text.replace(new RegExp(`\\{${name}\\}`, 'g'), value);
  }
  return text;
}

const OPS = {
  round: (x) => out(Math.round(num(x))),
  ceil: (x) => out(Math.ceil(num(x))),
  floor: (x) => out(Math.floor(num(x))),
  string: (x) => String(num(x)),
  max: (...xs) => out(Math.max(...xs.map(num))),
  min: (...xs) => out(Math.min(...xs.map(num))),
  grace: (maxTokens, reserve, g) => out(graceLimit(num(maxTokens), num(reserve), num(g))),
  budget_for: (price, g) => {
    const b = budgetFor(num(price), num(g));
    return b === null ? null : out(b);
  },
  stringify: (value) => JSON.stringify(value),
  length: (s) => s.length,
  slice: (s, end) => s.slice(0, end),
  cut: (s, end) => cutBefore(s, end),
  trim: (s) => s.trim(),
  replace: (subject, pattern, replacement) => subject.replace(literal(pattern), replacement),
  header,
  text_tokens: (s) => defaultEstimate(s),
  // The estimator (tests/js_estimator.mjs): a pricing spec is {text, epoch, stamps}.
  json_tokens: (s) => jsonEstimate(s),
  raw: (block, spec) => out(rawPrice(block, pricingOf(spec))),
  estimate: (content, spec, calibration) => out(storeEstimate(content, pricingOf(spec), num(calibration))),
  fallback: (content) => out(fallbackEstimate(content)),
  text_only: (content) => out(textOnlyEstimate(content)),
  calibrate: (current, factor) => out(calibrate(num(current), num(factor))),
  // A scenario file's text, read as the TypeScript reads its records (tests/js_store.mjs).
  store: (text) => readStore(JSON.parse(text).store),
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  let answer;
  try {
    answer = JSON.parse(line, revive).map(([op, ...args]) => OPS[op](...args));
  } catch (err) {
    answer = { error: String(err && err.stack ? err.stack : err) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
});
