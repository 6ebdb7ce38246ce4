use crate::term::BufWrite as _;
use alloc::string::String;

/// Represents a foreground or background color for cells.
#[derive(Eq, PartialEq, Debug, Copy, Clone, Default)]
pub enum Color {
    /// The default terminal color.
    #[default]
    Default,

    /// An indexed terminal color.
    Idx(u8),

    /// An RGB terminal color. The parameters are (red, green, blue).
    Rgb(u8, u8, u8),
}

const TEXT_MODE_INTENSITY: u8 = 0b0000_0011;
const TEXT_MODE_BOLD: u8 = 0b0000_0001;
const TEXT_MODE_DIM: u8 = 0b0000_0010;
const TEXT_MODE_ITALIC: u8 = 0b0000_0100;
const TEXT_MODE_UNDERLINE: u8 = 0b0000_1000;
const TEXT_MODE_INVERSE: u8 = 0b0001_0000;

/// A colour packed as `[tag, a, b, c]`: `[0, 0, 0, 0]` default, `[1, i, 0,
/// 0]` indexed, `[2, r, g, b]` RGB. termic: every byte is meaningful (an
/// enum has padding), so comparing two `Attrs` is two 4-byte compares and
/// one byte, and the compact capture copies the bytes as they are.
pub(crate) type PackedColor = [u8; 4];

impl Color {
    pub(crate) const fn pack(self) -> PackedColor {
        match self {
            Self::Default => [0, 0, 0, 0],
            Self::Idx(i) => [1, i, 0, 0],
            Self::Rgb(r, g, b) => [2, r, g, b],
        }
    }

    pub(crate) const fn unpack(b: PackedColor) -> Self {
        match b[0] {
            1 => Self::Idx(b[1]),
            2 => Self::Rgb(b[1], b[2], b[3]),
            _ => Self::Default,
        }
    }
}

#[derive(Clone, Copy, Eq, Debug)]
pub struct Attrs {
    fg: PackedColor,
    bg: PackedColor,
    pub mode: u8,
}

impl PartialEq for Attrs {
    /// termic: the colours as two 32-bit words (the hot compare of the
    /// compact capture).
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.colors_word() == other.colors_word() && self.mode == other.mode
    }
}

impl Default for Attrs {
    fn default() -> Self {
        Self::new()
    }
}

impl Attrs {
    pub const fn new() -> Self {
        Self {
            fg: [0; 4],
            bg: [0; 4],
            mode: 0,
        }
    }

    /// termic: the attributes as stored, from their packed bytes (the
    /// compact capture's record).
    pub(crate) const fn from_packed(
        fg: PackedColor,
        bg: PackedColor,
        mode: u8,
    ) -> Self {
        Self { fg, bg, mode }
    }

    pub(crate) const fn packed_fg(&self) -> PackedColor {
        self.fg
    }

    pub(crate) const fn packed_bg(&self) -> PackedColor {
        self.bg
    }

    #[inline]
    const fn colors_word(&self) -> u64 {
        (u32::from_ne_bytes(self.fg) as u64)
            | ((u32::from_ne_bytes(self.bg) as u64) << 32)
    }

    pub fn fgcolor(&self) -> Color {
        Color::unpack(self.fg)
    }

    pub fn bgcolor(&self) -> Color {
        Color::unpack(self.bg)
    }

    pub fn set_fgcolor(&mut self, color: Color) {
        self.fg = color.pack();
    }

    pub fn set_bgcolor(&mut self, color: Color) {
        self.bg = color.pack();
    }

    /// termic: default colours and no mode (`== Attrs::new()`, cheaper).
    #[inline]
    pub(crate) fn is_default(&self) -> bool {
        self.mode == 0 && self.colors_word() == 0
    }

    pub fn bold(&self) -> bool {
        self.mode & TEXT_MODE_BOLD != 0
    }

    pub fn dim(&self) -> bool {
        self.mode & TEXT_MODE_DIM != 0
    }

    fn intensity(&self) -> u8 {
        self.mode & TEXT_MODE_INTENSITY
    }

    pub fn set_bold(&mut self) {
        self.mode &= !TEXT_MODE_INTENSITY;
        self.mode |= TEXT_MODE_BOLD;
    }

    pub fn set_dim(&mut self) {
        self.mode &= !TEXT_MODE_INTENSITY;
        self.mode |= TEXT_MODE_DIM;
    }

    pub fn set_normal_intensity(&mut self) {
        self.mode &= !TEXT_MODE_INTENSITY;
    }

    pub fn italic(&self) -> bool {
        self.mode & TEXT_MODE_ITALIC != 0
    }

    pub fn set_italic(&mut self, italic: bool) {
        if italic {
            self.mode |= TEXT_MODE_ITALIC;
        } else {
            self.mode &= !TEXT_MODE_ITALIC;
        }
    }

    pub fn underline(&self) -> bool {
        self.mode & TEXT_MODE_UNDERLINE != 0
    }

    pub fn set_underline(&mut self, underline: bool) {
        if underline {
            self.mode |= TEXT_MODE_UNDERLINE;
        } else {
            self.mode &= !TEXT_MODE_UNDERLINE;
        }
    }

    pub fn inverse(&self) -> bool {
        self.mode & TEXT_MODE_INVERSE != 0
    }

    pub fn set_inverse(&mut self, inverse: bool) {
        if inverse {
            self.mode |= TEXT_MODE_INVERSE;
        } else {
            self.mode &= !TEXT_MODE_INVERSE;
        }
    }

    pub fn write_escape_code_diff(
        &self,
        contents: &mut String,
        other: &Self,
    ) {
        self.write_escape_code_diff_fmt(contents, other)
            .expect("writing to a String cannot fail");
    }

    pub fn write_escape_code_diff_fmt(
        &self,
        writer: &mut impl alloc::fmt::Write,
        other: &Self,
    ) -> alloc::fmt::Result {
        if self != other && self == &Self::default() {
            return crate::term::ClearAttrs.write_fmt(writer);
        }

        let attrs = crate::term::Attrs::default();

        let attrs = if self.fg == other.fg {
            attrs
        } else {
            attrs.fgcolor(self.fgcolor())
        };
        let attrs = if self.bg == other.bg {
            attrs
        } else {
            attrs.bgcolor(self.bgcolor())
        };
        let attrs = if self.intensity() == other.intensity() {
            attrs
        } else {
            attrs.intensity(match self.intensity() {
                0 => crate::term::Intensity::Normal,
                TEXT_MODE_BOLD => crate::term::Intensity::Bold,
                TEXT_MODE_DIM => crate::term::Intensity::Dim,
                _ => unreachable!(),
            })
        };
        let attrs = if self.italic() == other.italic() {
            attrs
        } else {
            attrs.italic(self.italic())
        };
        let attrs = if self.underline() == other.underline() {
            attrs
        } else {
            attrs.underline(self.underline())
        };
        let attrs = if self.inverse() == other.inverse() {
            attrs
        } else {
            attrs.inverse(self.inverse())
        };

        attrs.write_fmt(writer)
    }
}

