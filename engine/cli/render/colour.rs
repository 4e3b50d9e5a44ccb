//! The colours of every picture: a few fixed scene colours and the group colours, so a GIF
//! palette can be fixed in advance (`palette`).

use tiny_skia::Paint;

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `self` over `under` with opacity `a` (0..=1), rounded to the nearest integer.
    pub fn over(self, under: Rgb, a: f32) -> Rgb {
        let mix = |x: u8, y: u8| (x as f32 * a + y as f32 * (1.0 - a)).round().clamp(0.0, 255.0) as u8;
        Rgb(mix(self.0, under.0), mix(self.1, under.1), mix(self.2, under.2))
    }

    /// `#rrggbb`, for SVG and HTML.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// A tiny-skia paint of this colour at opacity `alpha` (0..=1), anti-aliased.
    pub fn paint(self, alpha: f32) -> Paint<'static> {
        let mut paint = Paint::default();
        paint.set_color_rgba8(self.0, self.1, self.2, (alpha.clamp(0.0, 1.0) * 255.0).round() as u8);
        paint.anti_alias = true;
        paint
    }
}

pub const BACKGROUND: Rgb = Rgb(246, 245, 240);
pub const BOUNDS: Rgb = Rgb(150, 150, 150);
pub const OBSTACLE: Rgb = Rgb(78, 78, 84);
pub const EXIT_FILL: Rgb = Rgb(250, 222, 214);
pub const EXIT_LINE: Rgb = Rgb(200, 90, 70);
pub const SOURCE_FILL: Rgb = Rgb(222, 240, 216);
pub const SOURCE_LINE: Rgb = Rgb(90, 160, 80);
pub const PATH: Rgb = Rgb(110, 130, 175);
pub const GATE: Rgb = Rgb(160, 60, 190);
pub const TEXT: Rgb = Rgb(30, 30, 30);
/// Targets: black crosshairs and rings, unlike any group colour.
pub const TARGET: Rgb = Rgb(0, 0, 0);
pub const LEGEND_BG: Rgb = Rgb(255, 255, 255);

/// Group colours (Tableau 10); group `g` gets `GROUP_COLOURS[g % 10]`.
pub const GROUP_COLOURS: [Rgb; 10] = [
    Rgb(31, 119, 180),
    Rgb(214, 39, 40),
    Rgb(44, 160, 44),
    Rgb(255, 127, 14),
    Rgb(148, 103, 189),
    Rgb(140, 86, 75),
    Rgb(227, 119, 194),
    Rgb(23, 190, 207),
    Rgb(188, 189, 34),
    Rgb(127, 127, 127),
];

/// The colour of group `g`.
pub fn group_colour(g: u16) -> Rgb {
    GROUP_COLOURS[g as usize % GROUP_COLOURS.len()]
}

/// The fixed palette of every picture with `groups` groups: the scene colours and the group
/// colours, each also blended over the background at 25, 50 and 75 % (anti-aliased edges and
/// trails), and a grey ramp. At most 10 × 4 + 12 × 4 + 16 = 104 colours, in a fixed order.
pub fn palette(groups: usize) -> Vec<Rgb> {
    let mut base = vec![
        BACKGROUND,
        TEXT,
        LEGEND_BG,
        BOUNDS,
        OBSTACLE,
        EXIT_FILL,
        EXIT_LINE,
        SOURCE_FILL,
        SOURCE_LINE,
        PATH,
        GATE,
        TARGET,
    ];
    base.extend(GROUP_COLOURS.iter().take(groups.clamp(1, GROUP_COLOURS.len())));
    let mut out = Vec::new();
    for c in base {
        for a in [1.0, 0.75, 0.5, 0.25] {
            out.push(c.over(BACKGROUND, a));
        }
    }
    for k in 0..16u8 {
        out.push(Rgb(k * 17, k * 17, k * 17));
    }
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert(*c));
    out
}
