import { describe, expect, it } from 'vitest';
import { parseTraceparent } from './traceparent.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads the trace id and the caller’s span of a valid version-00 header, sampled or not', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, parentSpanId: SPAN });
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-00`)).toEqual({ traceId: TRACE, parentSpanId: SPAN });
  });

  it.each([
    [undefined, 'absent'],
    ['', 'empty'],
    [`01-${TRACE}-${SPAN}-01`, 'another version'],
    [`ff-${TRACE}-${SPAN}-01`, 'the forbidden version'],
    [`00-${'0'.repeat(32)}-${SPAN}-01`, 'an all-zero trace id'],
    [`00-${TRACE}-${'0'.repeat(16)}-01`, 'an all-zero parent id'],
    [`00-${TRACE.toUpperCase()}-${SPAN}-01`, 'upper-case hex'],
    [`00-${TRACE.slice(1)}-${SPAN}-01`, 'a short trace id'],
    [`00-${TRACE}-${SPAN}-01-extra`, 'trailing fields'],
    [`00_${TRACE}_${SPAN}_01`, 'wrong separators'],
    [`00-${TRACE.slice(0, 31)}g-${SPAN}-01`, 'a non-hex digit'],
    [[`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`], 'sent twice'],
  ] as [string | string[] | undefined, string][])('ignores %o (%s)', (header) => {
    expect(parseTraceparent(header)).toBeNull();
  });
});
