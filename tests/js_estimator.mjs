// The message store's token estimator, written a second time from the TypeScript's description
// (tests/test_js_estimator.py drives it through tests/js_oracle.mjs).
//
// Sources, as described in docs/model.md ("The estimator and the fallback") and the project's pricing
// notes: the default text estimator, the JSON estimator, the raw block price, the per-block calibrated
// sum and the calibration guard of src/message-store.ts (stored id 70423042618); the epoch-0 Thinking
// rule of the flat-600 era store (commit 00088a77); the strategy's unbound fallback,
// `AutobiographicalStrategy.estimateTokens` with no view, and the message cap's own chars/4 estimate,
// `estimateTextOnlyTokens` (both autobiographical.ts, stored id 70244036435).
// Nothing here is taken from reference/: every rule is restated in plain JavaScript, with JavaScript's
// own strings (UTF-16 units), numbers (doubles), `??`, `typeof` and `JSON.stringify`.

// Characters per token for prose and for dense (JSON-ish, code, non-ASCII) text.
const PROSE = 2.9;
const DENSE = 2.3;
// A signature's characters per token; a ciphertext's characters per token.
const SIGNATURE = 3.3;
const CIPHERTEXT = 6;
// Hidden reasoning with nothing to measure; an image with no estimate; a document, audio or video.
const HIDDEN = 600;
const IMAGE = 1600;
const MEDIA = 1000;
// The name and id of a tool call.
const TOOL_CALL = 20;
// How many leading UTF-16 units the density probe reads, and the share above which text is dense.
const PROBE = 2000;
const THRESHOLD = 0.12;

// The ASCII characters the probe counts as dense, by char code: braces, brackets, the double quote,
// colon, underscore, slash, equals sign and backquote. Every unit above 126 is dense too.
const PUNCTUATION = new Set([0x7b, 0x7d, 0x5b, 0x5d, 0x22, 0x3a, 0x5f, 0x2f, 0x3d, 0x60]);

export function isDense(code) {
  return code > 126 || PUNCTUATION.has(code);
}

export function defaultEstimate(text) {
  if (!text) return 0;
  const probe = Math.min(text.length, PROBE);
  let dense = 0;
  for (let i = 0; i < probe; i += 1) if (isDense(text.charCodeAt(i))) dense += 1;
  const rate = dense / probe > THRESHOLD ? DENSE : PROSE;
  return Math.ceil(text.length / rate);
}

export function jsonEstimate(text) {
  return text ? Math.ceil(text.length / DENSE) : 0;
}

// Text estimators a store may be given in place of the default, by name. `quarter_plus_one` answers
// 1 for the empty string, so a test sees whether it was asked.
export const ESTIMATORS = {
  default: defaultEstimate,
  quarter_plus_one: (text) => Math.ceil(text.length / 4) + 1,
};

// A stamp (a block's `tokenEstimate`) as a rule reads it: `typescript` takes any number at all, as the
// store's `typeof ... === 'number'` test does; `sound` (the project's reference rule) takes only a
// finite number >= 0. Anything else is no stamp (undefined).
function stamp(value, rule) {
  if (typeof value !== 'number') return undefined;
  if (rule === 'sound' && !(Number.isFinite(value) && value >= 0)) return undefined;
  return value;
}

// An image's price: the store's `tokenEstimate ?? default`, so null and undefined give the default and
// every other value (NaN and negatives included) is kept; under `sound` only a stamp the rule takes.
function imagePrice(block, rule) {
  if (rule === 'sound') return stamp(block.tokenEstimate, rule) ?? IMAGE;
  return block.tokenEstimate ?? IMAGE;
}

function signed(block) {
  return typeof block.signature === 'string' && block.signature.length > 0;
}

function thinkingPrice(block, pricing) {
  const stamped = stamp(block.tokenEstimate, pricing.stamps);
  if (stamped !== undefined) return stamped;
  if (pricing.epoch === 0) {
    // The flat-600 era: a signed block with no visible text is hidden reasoning; else its text.
    if (signed(block) && !block.thinking) return HIDDEN;
    return pricing.text(block.thinking);
  }
  const text = pricing.text(block.thinking ?? '');
  return signed(block) ? Math.max(text, Math.round(block.signature.length / SIGNATURE)) : text;
}

function redactedPrice(block, pricing) {
  const stamped = stamp(block.tokenEstimate, pricing.stamps);
  if (stamped !== undefined) return stamped;
  const data = block.data;
  return typeof data === 'string' && data.length > 0 ? Math.round(data.length / CIPHERTEXT) : HIDDEN;
}

function toolResultPrice(block, pricing) {
  const content = block.content;
  if (!content) return 0;
  if (typeof content === 'string') return jsonEstimate(content);
  if (Array.isArray(content)) return content.reduce((sum, inner) => sum + rawPrice(inner, pricing), 0);
  return 0;
}

// One block's raw price (before calibration). `pricing` = {text, epoch, stamps}.
export function rawPrice(block, pricing) {
  switch (block.type) {
    case 'text':
      return pricing.text(block.text);
    case 'thinking':
      return thinkingPrice(block, pricing);
    case 'redacted_thinking':
      return redactedPrice(block, pricing);
    case 'tool_use':
      return jsonEstimate(JSON.stringify(block.input)) + TOOL_CALL;
    case 'tool_result':
      return toolResultPrice(block, pricing);
    case 'image':
      return imagePrice(block, pricing.stamps);
    case 'document':
    case 'audio':
    case 'video':
      return MEDIA;
    default:
      return 0;
  }
}

// The store's estimate of some content: each top-level block's raw price times the calibration,
// rounded on its own; the rounded prices summed from 0, left to right.
export function storeEstimate(content, pricing, calibration) {
  let total = 0;
  for (const block of content) total += Math.round(rawPrice(block, pricing) * calibration);
  return total;
}

// The strategy's price with no store view bound: Text, Thinking and RedactedThinking only, priced by
// the default estimator at the signature rule with every numeric stamp taken, neither calibrated nor
// rounded; every other block (a tool result too, whatever it holds) is free.
const FALLBACK = { text: defaultEstimate, epoch: 1, stamps: 'typescript' };
export function fallbackEstimate(content) {
  let total = 0;
  for (const block of content) {
    if (block.type === 'text' || block.type === 'thinking' || block.type === 'redacted_thinking') {
      total += rawPrice(block, FALLBACK);
    }
  }
  return total;
}

// The message cap's own estimate: a quarter of the UTF-16 length, rounded up, of each Text's text,
// each Thinking's text, each ToolUse input's JSON text (plus 20) and each tool result given as a string;
// every other block, a tool result holding blocks too, is 0. Rounded per block, summed.
export function textOnlyEstimate(content) {
  const quarter = (text) => Math.ceil(text.length / 4);
  let total = 0;
  for (const block of content) {
    if (block.type === 'text') total += quarter(block.text);
    else if (block.type === 'thinking') total += quarter(block.thinking);
    else if (block.type === 'tool_use') total += quarter(JSON.stringify(block.input)) + TOOL_CALL;
    else if (block.type === 'tool_result' && typeof block.content === 'string') total += quarter(block.content);
  }
  return total;
}

// The store's calibration after `setTokenCalibration(factor)`: taken only when finite and strictly
// between 0.25 and 4, else the current one stays.
export function calibrate(current, factor) {
  return Number.isFinite(factor) && factor > 0.25 && factor < 4 ? factor : current;
}

export function pricingOf(spec) {
  return { text: ESTIMATORS[spec.text ?? 'default'], epoch: spec.epoch, stamps: spec.stamps };
}
