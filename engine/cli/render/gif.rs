//! Animated GIF output with a fixed palette.
//!
//! Every colour a frame can contain is known in advance (the scene colours and the group
//! colours, see `colour::palette`), so there is no per-frame colour quantization: anti-aliased
//! pixels are mapped to the nearest palette entry through a 32×32×32 lookup table built once.
//! Each frame after the first stores only the rectangle that changed, with the unchanged
//! pixels in it transparent. Same frames in, same bytes out.

use gif::{DisposalMethod, Encoder, Frame, Repeat};
use tiny_skia::Pixmap;

use super::colour::Rgb;

/// Maps colours to the nearest palette entry through a table over 5-bit-per-channel colours.
pub struct Quantizer {
    lut: Vec<u8>,
}

impl Quantizer {
    pub fn new(palette: &[Rgb]) -> Quantizer {
        assert!(!palette.is_empty() && palette.len() <= 256, "a GIF palette holds 1 to 256 colours");
        let mut lut = vec![0u8; 1 << 15];
        for (cell, slot) in lut.iter_mut().enumerate() {
            // The centre of the cell.
            let r = (((cell >> 10) & 31) << 3 | 4) as i32;
            let g = (((cell >> 5) & 31) << 3 | 4) as i32;
            let b = ((cell & 31) << 3 | 4) as i32;
            let mut best = (i32::MAX, 0u8);
            for (k, c) in palette.iter().enumerate() {
                let (dr, dg, db) = (r - c.0 as i32, g - c.1 as i32, b - c.2 as i32);
                // Weighted for the eye's sensitivity; ties go to the lower index.
                let d = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
                if d < best.0 {
                    best = (d, k as u8);
                }
            }
            *slot = best.1;
        }
        Quantizer { lut }
    }

    /// Palette indices of an opaque pixmap, row by row.
    pub fn indices(&self, pixmap: &Pixmap) -> Vec<u8> {
        pixmap
            .pixels()
            .iter()
            .map(|p| {
                let cell =
                    (p.red() as usize >> 3) << 10 | (p.green() as usize >> 3) << 5 | p.blue() as usize >> 3;
                self.lut[cell]
            })
            .collect()
    }
}

/// Builds an animated GIF in memory.
pub struct GifWriter {
    encoder: Encoder<Vec<u8>>,
    quantizer: Quantizer,
    width: u16,
    height: u16,
    /// Frame delay, hundredths of a second.
    delay: u16,
    previous: Option<Vec<u8>>,
    /// The palette slot marking "unchanged" pixels: the first one past the colours, if any.
    transparent: Option<u8>,
    pub frames: usize,
}

impl GifWriter {
    pub fn new(width: u32, height: u32, fps: f32, palette: &[Rgb]) -> anyhow::Result<GifWriter> {
        let (width, height) = (u16::try_from(width)?, u16::try_from(height)?);
        let mut flat: Vec<u8> = palette.iter().flat_map(|c| [c.0, c.1, c.2]).collect();
        // A GIF palette has a power-of-two size; pad with black, keeping a spare slot for the
        // transparent index.
        flat.resize(3 * (palette.len() + 1).next_power_of_two().clamp(2, 256), 0);
        let mut encoder = Encoder::new(Vec::new(), width, height, &flat)?;
        encoder.set_repeat(Repeat::Infinite)?;
        let delay = (100.0 / fps).round().clamp(2.0, 65535.0) as u16;
        Ok(GifWriter {
            encoder,
            quantizer: Quantizer::new(palette),
            width,
            height,
            delay,
            previous: None,
            transparent: u8::try_from(palette.len()).ok(),
            frames: 0,
        })
    }

    pub fn push(&mut self, pixmap: &Pixmap) -> anyhow::Result<()> {
        let indices = self.quantizer.indices(pixmap);
        let (w, h) = (self.width as usize, self.height as usize);
        // Only the rectangle that differs from the previous frame (at least one pixel, as a
        // frame cannot be empty); the rest is kept from before.
        let (x0, y0, x1, y1) = match &self.previous {
            None => (0, 0, w, h),
            Some(prev) => changed_rect(prev, &indices, w, h).unwrap_or((0, 0, 1, 1)),
        };
        // Inside that rectangle, pixels that did not change are transparent (the frame before
        // shows through), which leaves long runs for LZW to compress.
        let mut buffer = Vec::with_capacity((x1 - x0) * (y1 - y0));
        for y in y0..y1 {
            let row = &indices[y * w + x0..y * w + x1];
            match (&self.previous, self.transparent) {
                (Some(prev), Some(t)) => {
                    let before = &prev[y * w + x0..y * w + x1];
                    buffer
                        .extend(row.iter().zip(before).map(|(&now, &was)| if now == was { t } else { now }));
                }
                _ => buffer.extend_from_slice(row),
            }
        }
        let frame = Frame {
            delay: self.delay,
            transparent: if self.previous.is_some() { self.transparent } else { None },
            dispose: DisposalMethod::Keep,
            left: x0 as u16,
            top: y0 as u16,
            width: (x1 - x0) as u16,
            height: (y1 - y0) as u16,
            buffer: buffer.into(),
            ..Frame::default()
        };
        self.encoder.write_frame(&frame)?;
        self.previous = Some(indices);
        self.frames += 1;
        Ok(())
    }

    pub fn finish(self) -> anyhow::Result<Vec<u8>> {
        Ok(self.encoder.into_inner()?)
    }
}

/// The smallest rectangle `[x0, x1) × [y0, y1)` holding every differing pixel.
fn changed_rect(a: &[u8], b: &[u8], w: usize, h: usize) -> Option<(usize, usize, usize, usize)> {
    let row_differs = |y: usize| a[y * w..(y + 1) * w] != b[y * w..(y + 1) * w];
    let y0 = (0..h).find(|&y| row_differs(y))?;
    let y1 = (y0..h).rev().find(|&y| row_differs(y)).map_or(y0 + 1, |y| y + 1);
    let mut x0 = w;
    let mut x1 = 0;
    for y in y0..y1 {
        let (ra, rb) = (&a[y * w..(y + 1) * w], &b[y * w..(y + 1) * w]);
        if let Some(first) = (0..w).find(|&x| ra[x] != rb[x]) {
            x0 = x0.min(first);
            let last = (first..w).rev().find(|&x| ra[x] != rb[x]).unwrap_or(first);
            x1 = x1.max(last + 1);
        }
    }
    Some((x0, y0, x1, y1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changed_rectangle_is_tight() {
        let a = vec![0u8; 20];
        let mut b = a.clone();
        b[5 + 1] = 1; // (1, 1) in a 5 × 4 image
        b[5 * 2 + 3] = 1; // (3, 2)
        assert_eq!(changed_rect(&a, &b, 5, 4), Some((1, 1, 4, 3)));
        assert_eq!(changed_rect(&a, &a, 5, 4), None);
    }

    #[test]
    fn palette_colours_map_to_themselves() {
        let palette = super::super::colour::palette(3);
        let q = Quantizer::new(&palette);
        for (k, c) in palette.iter().enumerate() {
            let mut p = Pixmap::new(1, 1).expect("pixmap");
            p.fill(tiny_skia::Color::from_rgba8(c.0, c.1, c.2, 255));
            let got = q.indices(&p)[0] as usize;
            // Colours closer than the table's resolution may share a cell.
            let back = palette[got];
            let close = |x: u8, y: u8| (x as i32 - y as i32).abs() <= 8;
            assert!(close(back.0, c.0) && close(back.1, c.1) && close(back.2, c.2), "{k}: {c:?} -> {back:?}");
        }
    }
}
