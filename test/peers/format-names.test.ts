/** The flag tables' `--format` names (a leaf module) are the readers' names, in detection order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PEER_FORMAT_NAMES } from '../../src/peers/format-names.js';
import { PEER_FORMATS } from '../../src/peers/read-peer.js';

test('PEER_FORMAT_NAMES lists every reader of PEER_FORMATS, in the order detection tries them', () => {
  assert.deepEqual(
    PEER_FORMATS.map((format) => format.name),
    [...PEER_FORMAT_NAMES],
  );
});
