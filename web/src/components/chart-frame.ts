// What every dashboard chart shares (Recharts): its frame (the container's width, a fixed height, room for the axis
// titles) and its axes' look, a titled x axis and a titled y axis of whole numbers.

const TICK = { fontSize: 11, fill: '#333' };
const TITLE = { fontSize: 12, fill: '#333' };

export const CHART_FRAME = {
  responsive: true,
  width: '100%',
  height: 240,
  margin: { top: 8, right: 16, bottom: 24, left: 16 },
} as const;

export const xAxisLook = (title: string) => ({
  tick: TICK,
  label: { value: title, position: 'insideBottom' as const, offset: -16, ...TITLE },
});

/** `shift`: how far down the rotated title moves to sit centred on the axis (half its length, roughly). */
export const yAxisLook = (title: string, shift: number) => ({
  allowDecimals: false,
  width: 48,
  tick: TICK,
  label: { value: title, angle: -90, position: 'insideLeft' as const, dy: shift, ...TITLE },
});
