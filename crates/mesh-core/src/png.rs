//! PNG in and out of [`RgbaImage`] (the `png` feature): the one place the format crates
//! and the CLI turn embedded textures into pixels and back.

use parsing_primitives::{Budget, BudgetExceeded};

use crate::RgbaImage;

impl RgbaImage {
    /// Decodes an 8-bit (or 16-bit, stripped to 8) PNG of any colour type but indexed into
    /// RGBA. `None` for anything else, for a damaged file, or when the decoded pixels would
    /// take more than `max_bytes`: the header's size is checked before anything is
    /// allocated, so a hostile header cannot make it allocate.
    ///
    /// ```
    /// use meshfmt_core::RgbaImage;
    /// let img = RgbaImage { width: 2, height: 1, pixels: vec![255, 0, 0, 255, 0, 0, 255, 128] };
    /// let png = img.encode_png().ok_or("cannot encode")?;
    /// assert_eq!(RgbaImage::decode_png(&png, 1 << 20), Some(img));
    /// assert_eq!(RgbaImage::decode_png(&png, 4), None);
    /// assert_eq!(RgbaImage::decode_png(b"not a png", 1 << 20), None);
    /// # Ok::<(), &str>(())
    /// ```
    pub fn decode_png(bytes: &[u8], max_bytes: usize) -> Option<RgbaImage> {
        Self::decode_png_within(bytes, max_bytes, None)
            .ok()
            .flatten()
    }

    /// [`RgbaImage::decode_png`], also charging the decoded pixels to `budget` (an
    /// operation's shared allowance) before they are allocated: `Err` when the budget
    /// cannot pay, `Ok(None)` for a file this decoder does not take.
    ///
    /// ```
    /// use meshfmt_core::{Budget, Limits, RgbaImage};
    /// let img = RgbaImage { width: 2, height: 2, pixels: vec![7; 16] };
    /// let png = img.encode_png().ok_or("cannot encode")?;
    /// let budget = Budget::new(Limits { max_alloc_bytes: 40, ..Limits::DEFAULT });
    /// assert_eq!(RgbaImage::decode_png_in(&png, 1 << 20, &budget), Ok(Some(img)));
    /// assert!(RgbaImage::decode_png_in(&png, 1 << 20, &budget).is_err()); // 16 + 16 + 16 > 40
    /// # Ok::<(), &str>(())
    /// ```
    pub fn decode_png_in(
        bytes: &[u8],
        max_bytes: usize,
        budget: &Budget,
    ) -> Result<Option<RgbaImage>, BudgetExceeded> {
        Self::decode_png_within(bytes, max_bytes, Some(budget))
    }

    fn decode_png_within(
        bytes: &[u8],
        max_bytes: usize,
        budget: Option<&Budget>,
    ) -> Result<Option<RgbaImage>, BudgetExceeded> {
        let Some(mut r) = Self::png_reader(bytes, max_bytes) else {
            return Ok(None);
        };
        let Some(size) = r.output_buffer_size() else {
            return Ok(None);
        };
        // RGB and grey images grow to RGBA below: check that size too.
        let (w, h) = (r.info().width, r.info().height);
        let Some(rgba_size) = (w as usize)
            .checked_mul(h as usize)
            .and_then(|n| n.checked_mul(4))
        else {
            return Ok(None);
        };
        if size > max_bytes || rgba_size > max_bytes {
            return Ok(None);
        }
        if let Some(b) = budget {
            // The decode buffer and the RGBA pixels are alive together.
            b.charge(
                "decoded texture",
                (size as u64).saturating_add(rgba_size as u64),
            )?;
        }
        Ok(Self::decode_frame(&mut r, size))
    }

    fn png_reader(bytes: &[u8], max_bytes: usize) -> Option<png::Reader<std::io::Cursor<&[u8]>>> {
        let mut d = png::Decoder::new_with_limits(
            std::io::Cursor::new(bytes),
            png::Limits { bytes: max_bytes },
        );
        d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        d.read_info().ok()
    }

    fn decode_frame(r: &mut png::Reader<std::io::Cursor<&[u8]>>, size: usize) -> Option<Self> {
        let mut buf = vec![0; size];
        let info = r.next_frame(&mut buf).ok()?;
        let px = buf.get(..info.buffer_size())?;
        let pixels = match info.color_type {
            png::ColorType::Rgba => px.to_vec(),
            png::ColorType::Rgb => px
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            png::ColorType::GrayscaleAlpha => px
                .chunks_exact(2)
                .flat_map(|p| [p[0], p[0], p[0], p[1]])
                .collect(),
            png::ColorType::Grayscale => px.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => return None,
        };
        Some(RgbaImage {
            width: info.width,
            height: info.height,
            pixels,
        })
    }

    /// Encodes the image as an 8-bit RGBA PNG. `None` when `pixels` is not
    /// `width * height * 4` bytes or the size is out of PNG's range.
    pub fn encode_png(&self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().ok()?;
        w.write_image_data(&self.pixels).ok()?;
        w.finish().ok()?;
        Some(out)
    }
}
