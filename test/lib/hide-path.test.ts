import { describe, expect, it } from 'vitest';
import { pathHider } from '../../server/lib/hide-path.ts';

describe('pathHider', () => {
  const hide = pathHider('/srv/sheetport/data/');

  it('writes the data dir as <data dir> wherever a message quotes it whole', () => {
    expect(hide('The secrets file /srv/sheetport/data/secrets.json is not valid')).toBe(
      'The secrets file <data dir>/secrets.json is not valid',
    );
    expect(hide("EACCES: open '/srv/sheetport/data/backups/x', in /srv/sheetport/data")).toBe(
      "EACCES: open '<data dir>/backups/x', in <data dir>",
    );
  });

  it('leaves a longer name, or the same letters inside another path, alone', () => {
    for (const text of [
      '/srv/sheetport/database',
      '/srv/sheetport/data-old/x',
      '/home/srv/sheetport/data/x',
    ]) {
      expect(hide(text)).toBe(text);
    }
  });

  it('never hides a root folder, which every path would match', () => {
    expect(pathHider('/')('No route for GET /v1/x.')).toBe('No route for GET /v1/x.');
  });
});

describe('pathHider on a text cut short', () => {
  const hide = pathHider('/srv/sheetport/data');

  it('drops the head of the data dir at the cut', () => {
    expect(hide('Could not open /srv/sheetport/da…')).toBe('Could not open …');
    expect(hide('Could not open /srv/…')).toBe('Could not open …');
    expect(hide('in /srv/sheetport/data and /srv/sheet…')).toBe('in <data dir> and …');
  });

  it('keeps a text that was not cut, or whose end is no part of the path', () => {
    expect(hide('Waiting for /srv')).toBe('Waiting for /srv');
    expect(hide('Sheet "abc…')).toBe('Sheet "abc…');
  });
});
