// A scenario file's store read the way the TypeScript reads its own records (tests/test_js_store.py).
//
// A scenario stands for the strategy's persisted records, which the TypeScript reads back with
// `JSON.parse`: a field written `null` is null, a field left out is undefined, and each use site
// applies its own JavaScript test. What this reader reports, per use site:
//   - a message's store price: the store estimator over its content (tests/js_estimator.mjs), at the
//     file's calibration as `setTokenCalibration` takes it and the file's pricing epoch (and again under
//     the project's sound stamp rule);
//   - a summary's parent pointer: merged when `parentId ?? mergedInto` is truthy (getSummaryParentId in
//     src/types/strategy.ts, stored id 70141970840; its result tested for truth in findAncestorAt,
//     autobiographical.ts stored id 70244036435, and where merge sources are gathered);
//   - its answer: the carriers when `responseContent` is truthy and non-empty, else one text block of
//     `content` (summaryAnswerProse, autobiographical.ts stored id 70244036435);
//   - its floor: `responseContent` truthy, `Number.isFinite(tokens)` and `tokens > 0` (recallPairCost, same
//     version; carrier policy 'full');
//   - its price in the budget waterfall: `0 + tokens`, the running sum selectHierarchical adds it to;
//   - its position: the index of `sourceRange.first` among the messages, or MAX_SAFE_INTEGER when missing.
// The file's own conventions come first: either spelling of a name (snake_case or camelCase), a range
// as [first, last] or {first, last}, and the strings "NaN", "Infinity", "-Infinity" for those numbers.

import { calibrate, fallbackEstimate, pricingOf, storeEstimate } from './js_estimator.mjs';

const NUMBER_STRINGS = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// A record with every key in its camelCase spelling (the file accepts either).
function named(record) {
  const out = {};
  for (const [key, value] of Object.entries(record)) out[camel(key)] = value;
  return out;
}

// A number field as the file writes it: one of the three strings stands for its double.
function number(value) {
  return typeof value === 'string' && value in NUMBER_STRINGS ? NUMBER_STRINGS[value] : value;
}

function block(raw) {
  const b = named(raw);
  if ('tokenEstimate' in b) b.tokenEstimate = number(b.tokenEstimate);
  if (b.type === 'tool_result' && Array.isArray(b.content)) b.content = b.content.map(block);
  return b;
}

function range(raw) {
  if (Array.isArray(raw)) return { first: raw[0], last: raw[1] };
  return raw;
}

// What a number is in the result line: its text, so that NaN, the infinities and -0 survive JSON.
const show = (x) => (Object.is(x, -0) ? '-0' : String(x));

export function readStore(raw) {
  const store = named(raw);
  const calibration = calibrate(1, number(store.calibration ?? 1));
  const pricing = pricingOf({ epoch: store.pricingEpoch ?? 1, stamps: 'typescript' });
  const sound = pricingOf({ epoch: store.pricingEpoch ?? 1, stamps: 'sound' });
  const messages = (store.messages ?? []).map((m) => ({ ...m, content: m.content.map(block) }));
  const position = new Map(messages.map((m, i) => [m.id, i]));
  const summaries = (store.summaries ?? []).map((rawSummary) => {
    const s = named(rawSummary);
    if ('tokens' in s) s.tokens = number(s.tokens);
    if (Array.isArray(s.responseContent)) s.responseContent = s.responseContent.map(block);
    const carriers = s.responseContent && s.responseContent.length > 0;
    const prose = carriers ? [...s.responseContent] : [{ type: 'text', text: s.content }];
    const first = range(s.sourceRange)?.first;
    return {
      id: s.id,
      merged: Boolean(s.parentId ?? s.mergedInto),
      carriers: Boolean(carriers),
      floor: Boolean(s.responseContent && Number.isFinite(s.tokens) && s.tokens > 0),
      waterfall: show(0 + s.tokens),
      position: position.get(first) ?? Number.MAX_SAFE_INTEGER,
      prose_store: show(storeEstimate(prose, pricing, calibration)),
      prose_fallback: show(fallbackEstimate(prose)),
    };
  });
  return {
    calibration: show(calibration),
    messages: messages.map((m) => show(storeEstimate(m.content, pricing, calibration))),
    // The same under the project's sound stamp rule (a stamp only when finite and >= 0).
    messages_sound: messages.map((m) => show(storeEstimate(m.content, sound, calibration))),
    summaries,
  };
}
