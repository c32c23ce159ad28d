// CSS colours as a site config may give them (style.colors): they are copied into the prompts' stylesheet, so
// only a colour can pass, never a character that could end a declaration or a rule (`;`, `}`, quotes, `<`).
// Accepted: #rgb, #rgba, #rrggbb, #rrggbbaa; rgb(), rgba(), hsl(), hsla() of numbers (with %, deg, commas or
// spaces and `/` before the alpha); a CSS named colour, transparent or currentcolor. Case does not matter.

/** The 148 named colours of CSS Color Module Level 4, with transparent and currentcolor. */
const NAMED_COLORS = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown burlywood ' +
    'cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray ' +
    'darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen ' +
    'darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue ' +
    'firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew ' +
    'hotpink indianred indigo ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan ' +
    'lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue ' +
    'mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise mediumvioletred ' +
    'midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab orange orangered orchid ' +
    'palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple ' +
    'rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue ' +
    'slateblue slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white ' +
    'whitesmoke yellow yellowgreen transparent currentcolor'
  ).split(' '),
);

const HEX = /^#(?:[\da-f]{3,4}|[\da-f]{6}|[\da-f]{8})$/i;
const NUMBER = String.raw`[+-]?(?:\d{1,3}(?:\.\d{1,6})?|\.\d{1,6})(?:%|deg)?`;
/** Three or four numbers, separated by commas, spaces, or a `/` before the alpha. */
const FUNCTION = new RegExp(String.raw`^(?:rgba?|hsla?)\(\s*${NUMBER}(?:(?:\s*[,/]\s*|\s+)${NUMBER}){2,3}\s*\)$`, 'i');

export const CSS_COLOR_RULE =
  'must be a CSS colour: #rgb, #rrggbb (or with alpha), rgb(...), rgba(...), hsl(...), hsla(...) or a colour name such as navy';

/** Whether `value` is a CSS colour of the accepted forms (and nothing else). */
export function isCssColor(value: string): boolean {
  if (value.length > 64) return false;
  return HEX.test(value) || FUNCTION.test(value) || NAMED_COLORS.has(value.toLowerCase());
}
