/**
 * JSONP writer: `/**\/callback(json);`. The leading empty comment defuses content-sniffing attacks
 * (e.g. a callback that starts a Flash/PDF signature); the callback itself was validated as an identifier path.
 */
export const JSONP_TYPE = 'application/javascript; charset=utf-8';

/** U+2028/U+2029 are legal in JSON but were line terminators in pre-ES2019 JavaScript: escape them. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

export function jsonp(callback: string, json: string): string {
  const safe = json.replace(LINE_SEPARATORS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
  return `/**/${callback}(${safe});`;
}
