// What Google puts in every new spreadsheet's properties: the default cell format and the
// default theme (Sheets' stock colours and fonts).
export const DEFAULT_FORMAT = {
  backgroundColor: { red: 1, green: 1, blue: 1 },
  padding: { top: 2, right: 3, bottom: 2, left: 3 },
  verticalAlignment: 'BOTTOM',
  wrapStrategy: 'OVERFLOW_CELL',
  textFormat: {
    foregroundColor: {},
    fontFamily: 'arial,sans,sans-serif',
    fontSize: 10,
    bold: false,
    italic: false,
    strikethrough: false,
    underline: false,
    foregroundColorStyle: { rgbColor: {} },
  },
  backgroundColorStyle: { rgbColor: { red: 1, green: 1, blue: 1 } },
};

const theme = (colorType: string, rgbColor: Record<string, number>) => ({ colorType, color: { rgbColor } });

export const DEFAULT_THEME = {
  primaryFontFamily: 'Arial',
  themeColors: [
    theme('TEXT', {}),
    theme('BACKGROUND', { red: 1, green: 1, blue: 1 }),
    theme('ACCENT1', { red: 0.25882354, green: 0.52156866, blue: 0.95686275 }),
    theme('ACCENT2', { red: 0.91764706, green: 0.2627451, blue: 0.20784314 }),
    theme('ACCENT3', { red: 0.9843137, green: 0.7372549, blue: 0.015686275 }),
    theme('ACCENT4', { red: 0.20392157, green: 0.65882355, blue: 0.3254902 }),
    theme('ACCENT5', { red: 1, green: 0.42745098, blue: 0.003921569 }),
    theme('ACCENT6', { red: 0.27450982, green: 0.7411765, blue: 0.7764706 }),
    theme('LINK', { red: 0.06666667, green: 0.33333334, blue: 0.8 }),
  ],
};
