#!/usr/bin/env python3
"""ansi2svg.py: renders a `tmux capture-pane -p -e` capture (text with SGR
escape sequences) as an SVG image: one monospace cell per character, colours
and bold/dim/underline/reverse kept. No dependency beyond Python 3.

usage: ansi2svg.py CAPTURE.ansi COLS ROWS OUT.svg [TITLE]
"""
import html
import re
import sys
import unicodedata

CW, CH, FONT = 8.4, 17.0, 14  # cell width and height, font size (px)
PAD = 10
BG, FG = "#1d1f21", "#d0d0d0"
# xterm-like palette: 8 normal, 8 bright
PALETTE = ["#1d1f21", "#cc6666", "#8bc34a", "#e6c547", "#5f9ee0", "#b294bb", "#54c2c8", "#c5c8c6",
           "#666666", "#ff6e6e", "#a6e36e", "#ffe566", "#7fb8ff", "#d6a8e6", "#70e0e6", "#ffffff"]

SGR = re.compile(r"\x1b\[([0-9;:]*)m")
OTHER = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|\][^\x07]*\x07|.)")


def xterm256(n):
    """An xterm 256-colour index as #rrggbb."""
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        lv = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (lv[n // 36], lv[n // 6 % 6], lv[n % 6])
    g = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (g, g, g)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.dim = self.ul = self.rev = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.ul, self.rev)

    def apply(self, params):
        p = [int(x) if x.isdigit() else 0 for x in re.split("[;:]", params)] if params else [0]
        i = 0
        while i < len(p):
            c = p[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 4:
                self.ul = True
            elif c == 7:
                self.rev = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 24:
                self.ul = False
            elif c == 27:
                self.rev = False
            elif 30 <= c <= 37:
                self.fg = PALETTE[c - 30]
            elif c == 39:
                self.fg = None
            elif 40 <= c <= 47:
                self.bg = PALETTE[c - 40]
            elif c == 49:
                self.bg = None
            elif 90 <= c <= 97:
                self.fg = PALETTE[c - 90 + 8]
            elif 100 <= c <= 107:
                self.bg = PALETTE[c - 100 + 8]
            elif c in (38, 48) and i + 2 < len(p) and p[i + 1] == 5:
                col = xterm256(p[i + 2])
                if c == 38:
                    self.fg = col
                else:
                    self.bg = col
                i += 2
            elif c in (38, 48) and i + 4 < len(p) and p[i + 1] == 2:
                col = "#%02x%02x%02x" % tuple(p[i + 2:i + 5])
                if c == 38:
                    self.fg = col
                else:
                    self.bg = col
                i += 4
            i += 1


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def parse(text, cols, rows):
    """The screen as rows of cells (char, style key)."""
    screen = []
    st = Style()
    for line in text.split("\n")[:rows]:
        cells = []
        pos = 0
        while pos < len(line):
            m = SGR.match(line, pos)
            if m:
                st.apply(m.group(1))
                pos = m.end()
                continue
            m = OTHER.match(line, pos)
            if m and line[pos] == "\x1b":
                pos = m.end()
                continue
            ch = line[pos]
            pos += 1
            w = width(ch)
            if w == 0:
                continue
            cells.append((ch, st.key()))
            if w == 2:
                cells.append(("", st.key()))
        # the capture (tmux capture-pane -e -N) holds every cell written, the
        # blanks of a background included: the rest of the row is empty
        cells += [(" ", Style().key())] * (cols - len(cells))
        screen.append(cells[:cols])
    while len(screen) < rows:
        screen.append([(" ", Style().key())] * cols)
    return screen


def colours(key):
    fg, bg, bold, dim, ul, rev = key
    f, b = fg or FG, bg
    if rev:
        f, b = (bg or BG), (fg or FG)
    return f, b


def render(screen, cols, rows, title):
    w, h = cols * CW + 2 * PAD, rows * CH + 2 * PAD
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (w, h, w, h)]
    if title:
        out.append("<title>%s</title>" % html.escape(title))
    out.append('<rect width="100%%" height="100%%" rx="6" fill="%s"/>' % BG)
    out.append('<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">' % FONT)
    used = set()
    for y, cells in enumerate(screen):
        top = PAD + y * CH
        # backgrounds, as runs
        x = 0
        while x < cols:
            _, b = colours(cells[x][1])
            if b is None:
                x += 1
                continue
            x1 = x
            while x1 < cols and colours(cells[x1][1])[1] == b:
                x1 += 1
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (PAD + x * CW, top, (x1 - x) * CW, CH, b))
            x = x1
        # text, as runs of one style split at spaces, each stretched to its
        # cells; Braille cells drawn as dots, like a terminal font would
        x = 0
        base = top + CH * 0.78
        while x < cols:
            key = cells[x][1]
            ch = cells[x][0]
            f, _ = colours(key)
            if "\u2800" < ch <= "\u28ff":
                used.add(ord(ch))
                out.append('<use href="#b%02x" x="%.1f" y="%.1f" fill="%s"%s/>'
                           % (ord(ch) - 0x2800, PAD + x * CW, top, f,
                              ' opacity="0.6"' if key[3] else ""))
                x += 1
                continue
            if ch in ("", " ", "\u2800"):
                x += 1
                continue
            x1 = x
            while (x1 < cols and cells[x1][1] == key and cells[x1][0] not in (" ", "")
                   and not "\u2800" <= cells[x1][0] <= "\u28ff"):
                x1 += 1
            attrs = ' fill="%s"' % f
            if key[2]:
                attrs += ' font-weight="bold"'
            if key[3]:
                attrs += ' opacity="0.6"'
            if key[4]:
                attrs += ' text-decoration="underline"'
            txt = html.escape("".join(cells[i][0] for i in range(x, x1)))
            out.append('<text x="%.1f" y="%.1f" textLength="%.1f" lengthAdjust="spacingAndGlyphs"%s>%s</text>'
                       % (PAD + x * CW, base, (x1 - x) * CW, attrs, txt))
            x = x1
    out.append("</g>")
    # one symbol per Braille pattern used: dots on a 2x4 grid of the cell
    defs = ["<defs>"]
    bits = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20),
            (0, 3, 0x40), (1, 3, 0x80)]
    r = CW * 0.17
    for cp in sorted(used):
        dots = "".join('<circle cx="%.2f" cy="%.2f" r="%.2f"/>' % (CW * (0.28 + 0.44 * dx), CH * (0.14 + 0.24 * dy), r)
                       for dx, dy, b in bits if (cp - 0x2800) & b)
        defs.append('<g id="b%02x">%s</g>' % (cp - 0x2800, dots))
    defs.append("</defs>")
    out[3:3] = defs
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 5:
        sys.stderr.write(__doc__)
        return 2
    src, cols, rows, dst = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    title = sys.argv[5] if len(sys.argv) > 5 else ""
    with open(src, encoding="utf-8", errors="replace") as f:
        screen = parse(f.read(), cols, rows)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(render(screen, cols, rows, title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
