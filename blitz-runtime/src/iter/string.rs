//! Parallel iterators over a string's parts, as rayon's `ParallelString`: `par_chars`,
//! `par_char_indices`, `par_bytes`, `par_lines`, `par_split_whitespace`,
//! `par_split_ascii_whitespace`, `par_split`, `par_split_terminator`, `par_split_inclusive`,
//! `par_matches`, `par_match_indices`, `par_encode_utf16`.
//!
//! A piece is a range of byte positions, split anywhere by index arithmetic; its items are the
//! parts that *start* in its range. Every part has one start, so each part belongs to exactly
//! one piece, in order, whatever the split: a piece only has to find the first part starting at
//! or after its range's start (a short scan), and stop at the first one starting at or after its
//! end. Not indexed (a piece's count of parts is not known without scanning it).

use std::str::{CharIndices, Chars, EncodeUtf16, SplitAsciiWhitespace, SplitWhitespace};

use super::{Copied, IntoParallelIterator, Iter, ParallelIterator, ProducerCallback};
use crate::loops::ParallelSource;

/// What a string can be split on in [`ParallelString::par_split`]: a `char`, a slice or an
/// array of `char`s (any of them), or a closure `Fn(char) -> bool`, as `str::split` takes.
///
/// ```
/// use blitz::prelude::*;
/// let text = "a,b;c d";
/// let by_char: Vec<&str> = text.par_split(',').collect();
/// assert_eq!(by_char, ["a", "b;c d"]);
/// let by_any: Vec<&str> = text.par_split([',', ';', ' ']).collect();
/// assert_eq!(by_any, ["a", "b", "c", "d"]);
/// let by_fn: Vec<&str> = text.par_split(|c: char| !c.is_alphabetic()).collect();
/// assert_eq!(by_fn, ["a", "b", "c", "d"]);
/// ```
pub trait CharPattern: Sync + Send {
    /// Whether `c` is a separator.
    fn matches(&self, c: char) -> bool;

    /// The byte offset and char of the first separator in `text`. The default checks every
    /// char; a single `char` searches long texts word at a time (see `find_char`).
    #[doc(hidden)]
    fn find_in(&self, text: &str) -> Option<(usize, char)> {
        text.char_indices().find(|&(_, c)| self.matches(c))
    }
}

impl CharPattern for char {
    fn matches(&self, c: char) -> bool {
        *self == c
    }

    #[inline]
    fn find_in(&self, text: &str) -> Option<(usize, char)> {
        find_char(text, *self).map(|offset| (offset, *self))
    }
}

impl CharPattern for &[char] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> CharPattern for [char; N] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<const N: usize> CharPattern for &[char; N] {
    fn matches(&self, c: char) -> bool {
        self.contains(&c)
    }
}

impl<F: Fn(char) -> bool + Sync + Send> CharPattern for F {
    fn matches(&self, c: char) -> bool {
        self(c)
    }
}

/// Parallel iterators over the parts of a string, as rayon's `ParallelString`.
///
/// ```
/// use blitz::prelude::*;
/// let text = "one two\nthree four five\nsix";
/// assert_eq!(text.par_lines().count(), 3);
/// assert_eq!(text.par_split_whitespace().count(), 6);
/// let vowels = text.par_chars().filter(|c| "aeiou".contains(*c)).count();
/// assert_eq!(vowels, 10);
/// ```
pub trait ParallelString {
    /// The string, for the provided methods (implementors return themselves).
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let s = String::from("abc");
    /// assert_eq!(s.as_parallel_string(), "abc");
    /// ```
    fn as_parallel_string(&self) -> &str;

    /// The `char`s, in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!("héllo wörld".par_chars().filter(|c| !c.is_ascii()).count(), 2);
    /// ```
    fn par_chars(&self) -> StrParts<'_, CharsKind> {
        StrParts::new(self.as_parallel_string(), CharsKind)
    }

    /// The `char`s with their byte offsets, in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let spaces: Vec<usize> = "a bc d".par_char_indices().filter(|p| p.1 == ' ').map(|p| p.0).collect();
    /// assert_eq!(spaces, [1, 4]);
    /// ```
    fn par_char_indices(&self) -> StrParts<'_, CharIndicesKind> {
        StrParts::new(self.as_parallel_string(), CharIndicesKind)
    }

    /// The bytes, in order.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!("abc".par_bytes().map(u32::from).sum::<u32>(), 97 + 98 + 99);
    /// ```
    fn par_bytes(&self) -> Copied<Iter<'_, u8>> {
        self.as_parallel_string()
            .as_bytes()
            .into_par_iter()
            .copied()
    }

    /// The lines, as `str::lines`: split at `\n` or `\r\n`, which are left out, with no
    /// empty last line after a final line ending.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let lengths: Vec<usize> = "one\r\ntwo\n\nfour\n".par_lines().map(str::len).collect();
    /// assert_eq!(lengths, [3, 3, 0, 4]);
    /// ```
    fn par_lines(&self) -> StrParts<'_, LinesKind> {
        StrParts::new(self.as_parallel_string(), LinesKind)
    }

    /// The words between runs of Unicode whitespace, as `str::split_whitespace`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let words: Vec<&str> = "  the quick\tbrown\n fox ".par_split_whitespace().collect();
    /// assert_eq!(words, ["the", "quick", "brown", "fox"]);
    /// ```
    fn par_split_whitespace(&self) -> StrParts<'_, WhitespaceKind> {
        StrParts::new(self.as_parallel_string(), WhitespaceKind)
    }

    /// The words between runs of ASCII whitespace, as `str::split_ascii_whitespace`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// assert_eq!("a  b c ".par_split_ascii_whitespace().count(), 3);
    /// ```
    fn par_split_ascii_whitespace(&self) -> StrParts<'_, AsciiWhitespaceKind> {
        StrParts::new(self.as_parallel_string(), AsciiWhitespaceKind)
    }

    /// The parts between separators, as `str::split` with a `char` pattern: every separator
    /// ends one part and starts the next, so empty parts are kept.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let fields: Vec<&str> = "a,b,,c".par_split(',').collect();
    /// assert_eq!(fields, ["a", "b", "", "c"]);
    /// let parts: Vec<&str> = "1+2-3".par_split(['+', '-']).collect();
    /// assert_eq!(parts, ["1", "2", "3"]);
    /// ```
    fn par_split<P: CharPattern>(&self, separator: P) -> StrParts<'_, SplitKind<P>> {
        let kind = SplitKind::new(separator, SplitEnds::Split);
        StrParts::new(self.as_parallel_string(), kind)
    }

    /// The parts ended by separators, as `str::split_terminator`: `par_split` without the
    /// empty part after a final separator.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let rows: Vec<&str> = "a;b;;".par_split_terminator(';').collect();
    /// assert_eq!(rows, ["a", "b", ""]);
    /// ```
    fn par_split_terminator<P: CharPattern>(&self, terminator: P) -> StrParts<'_, SplitKind<P>> {
        let kind = SplitKind::new(terminator, SplitEnds::Terminator);
        StrParts::new(self.as_parallel_string(), kind)
    }

    /// The parts each ending with its separator, as `str::split_inclusive`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let lines: Vec<&str> = "one\ntwo\nrest".par_split_inclusive('\n').collect();
    /// assert_eq!(lines, ["one\n", "two\n", "rest"]);
    /// ```
    fn par_split_inclusive<P: CharPattern>(&self, separator: P) -> StrParts<'_, SplitKind<P>> {
        let kind = SplitKind::new(separator, SplitEnds::Inclusive);
        StrParts::new(self.as_parallel_string(), kind)
    }

    /// The chars that match `pattern`, each as a `&str`, as `str::matches` with a char
    /// pattern.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let digits: String = "a1b22c".par_matches(|c: char| c.is_ascii_digit()).collect();
    /// assert_eq!(digits, "122");
    /// ```
    fn par_matches<P: CharPattern>(&self, pattern: P) -> StrParts<'_, MatchesKind<P>> {
        StrParts::new(self.as_parallel_string(), MatchesKind { pattern })
    }

    /// The chars that match `pattern` with their byte offsets, as `str::match_indices` with a
    /// char pattern.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let found: Vec<(usize, &str)> = "añb,ñ".par_match_indices('ñ').collect();
    /// assert_eq!(found, [(1, "ñ"), (5, "ñ")]);
    /// ```
    fn par_match_indices<P: CharPattern>(&self, pattern: P) -> StrParts<'_, MatchIndicesKind<P>> {
        StrParts::new(self.as_parallel_string(), MatchIndicesKind { pattern })
    }

    /// The string as UTF-16 code units, as `str::encode_utf16`.
    ///
    /// ```
    /// use blitz::prelude::*;
    /// let units: Vec<u16> = "a🦀".par_encode_utf16().collect();
    /// assert_eq!(units, "a🦀".encode_utf16().collect::<Vec<_>>());
    /// ```
    fn par_encode_utf16(&self) -> StrParts<'_, EncodeUtf16Kind> {
        StrParts::new(self.as_parallel_string(), EncodeUtf16Kind)
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// One kind of part of a string (see the module docs). Implemented by the marker types of
/// [`ParallelString`]'s methods.
pub trait StrPartKind: Sync + Send {
    /// The parts (borrowing the string for `'t`).
    type Item<'t>: Send;
    /// The sequential iterator of a piece (borrowing the kind for `'k`).
    type Iter<'t, 'k>: Iterator<Item = Self::Item<'t>>
    where
        Self: 'k;

    /// How many positions a part can start at (the length of the split source).
    #[doc(hidden)]
    fn positions(&self, text: &str) -> usize {
        text.len()
    }

    /// The parts of `text` that start in `start..end`.
    #[doc(hidden)]
    fn parts<'t, 'k>(&'k self, text: &'t str, start: usize, end: usize) -> Self::Iter<'t, 'k>;
}

/// The iterator of the [`ParallelString`] methods: the parts of one kind of a string.
#[derive(Debug, Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct StrParts<'a, K> {
    text: &'a str,
    kind: K,
}

impl<'a, K: StrPartKind> StrParts<'a, K> {
    fn new(text: &'a str, kind: K) -> Self {
        StrParts { text, kind }
    }
}

impl<'a, K: StrPartKind> ParallelIterator for StrParts<'a, K> {
    type Item = K::Item<'a>;

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let end = self.kind.positions(self.text);
        callback.call(StrPiece {
            text: self.text,
            kind: &self.kind,
            start: 0,
            end,
        })
    }
}

/// The positions `start..end` of a string, yielding the parts that start there.
struct StrPiece<'t, 'k, K> {
    text: &'t str,
    kind: &'k K,
    start: usize,
    end: usize,
}

impl<K: StrPartKind> ParallelSource for StrPiece<'_, '_, K> {
    fn par_len(&self) -> usize {
        self.end - self.start
    }

    fn par_split_at(self, index: usize) -> (Self, Self) {
        let mid = self.start + index;
        (
            StrPiece { end: mid, ..self },
            StrPiece { start: mid, ..self },
        )
    }
}

impl<'t, 'k, K: StrPartKind> IntoIterator for StrPiece<'t, 'k, K> {
    type Item = K::Item<'t>;
    type IntoIter = K::Iter<'t, 'k>;

    fn into_iter(self) -> K::Iter<'t, 'k> {
        self.kind.parts(self.text, self.start, self.end)
    }
}

/// How many bytes [`find_char`] checks one char at a time before it hands the rest to
/// `str::find`.
const NEAR_BYTES: usize = 32;

/// The byte offset of the first `c` in `text`. Most parts are short, and `str::find`'s
/// word-at-a-time search costs more to set up than checking a few chars (1M parts of 2-4
/// bytes: 5.5-7.8 ms char by char, 12.4-13.5 ms with `find`); a long part is found 2-3x
/// faster by `find` (64 MB: 37-73 ms against 132-175). So the chars in the first
/// [`NEAR_BYTES`] are checked one at a time, and `find` searches the rest (1M short parts:
/// 5.7-5.9 ms; 64 MB: 17-22 ms).
#[inline(always)]
fn find_char(text: &str, c: char) -> Option<usize> {
    for (offset, x) in text.char_indices() {
        if x == c {
            return Some(offset);
        }
        if offset >= NEAR_BYTES {
            let from = offset + x.len_utf8();
            return text[from..].find(c).map(|rest| from + rest);
        }
    }
    None
}

/// The first char boundary at or after `index` (`index <= text.len()`).
fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// The first position at or after `index` that is not inside a word (a run of chars that are
/// not `is_space`), so that a word starts in `a..b` exactly if it starts in
/// `cut(a)..cut(b)`, and lies wholly in that slice.
fn word_cut(text: &str, index: usize, is_space: impl Fn(char) -> bool) -> usize {
    let index = ceil_char_boundary(text, index);
    let in_word_before = text[..index]
        .chars()
        .next_back()
        .is_some_and(|c| !is_space(c));
    if !in_word_before {
        return index;
    }
    match text[index..].char_indices().find(|&(_, c)| is_space(c)) {
        Some((offset, _)) => index + offset,
        None => text.len(),
    }
}

/// The bytes `first..last` of `text` that hold exactly the words starting in `start..end`.
/// The scan past the word that `start` falls in stops at `end`: a piece inside one long word
/// holds no word, and must not scan the rest of it to find that out.
fn word_range(
    text: &str,
    start: usize,
    end: usize,
    is_space: impl Fn(char) -> bool + Copy,
) -> (usize, usize) {
    let end = ceil_char_boundary(text, end);
    let first = word_cut(&text[..end], start, is_space);
    let last = if first < end {
        word_cut(text, end, is_space)
    } else {
        first
    };
    (first, last)
}

/// Marker of [`ParallelString::par_chars`].
#[derive(Debug, Clone, Copy)]
pub struct CharsKind;

impl StrPartKind for CharsKind {
    type Item<'t> = char;
    type Iter<'t, 'k> = Chars<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> Chars<'t> {
        // The chars starting in `start..end` are those of the slice between the boundaries.
        text[ceil_char_boundary(text, start)..ceil_char_boundary(text, end)].chars()
    }
}

/// Marker of [`ParallelString::par_char_indices`].
#[derive(Debug, Clone, Copy)]
pub struct CharIndicesKind;

/// The sequential side of `par_char_indices`: a slice's char indices, shifted by its offset.
#[derive(Debug, Clone)]
pub struct OffsetCharIndices<'a> {
    chars: CharIndices<'a>,
    offset: usize,
}

impl Iterator for OffsetCharIndices<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        let (index, c) = self.chars.next()?;
        Some((self.offset + index, c))
    }
}

impl StrPartKind for CharIndicesKind {
    type Item<'t> = (usize, char);
    type Iter<'t, 'k> = OffsetCharIndices<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> OffsetCharIndices<'t> {
        let offset = ceil_char_boundary(text, start);
        OffsetCharIndices {
            chars: text[offset..ceil_char_boundary(text, end)].char_indices(),
            offset,
        }
    }
}

/// Marker of [`ParallelString::par_lines`].
#[derive(Debug, Clone, Copy)]
pub struct LinesKind;

/// The first line start in `index..=limit`: 0, or just after a `\n` (a line start at the
/// very end starts no line; `str::lines` yields none there); `limit` if there is none before.
fn line_start(text: &str, index: usize, limit: usize) -> usize {
    if index == 0 {
        return 0;
    }
    // `\n` is one byte and never part of another char, so the search may begin at the next
    // char boundary and end at one: the bytes skipped are inside chars.
    let from = ceil_char_boundary(text, index - 1);
    let to = ceil_char_boundary(text, limit);
    if from >= to {
        return limit;
    }
    match find_char(&text[from..to], '\n') {
        Some(offset) => (from + offset + 1).min(limit),
        None => limit,
    }
}

/// The sequential side of `par_lines`: the lines of a text that start in `next..end`, each
/// found by one search for its `\n` (the last may run past `end`, to its own end). As
/// `str::lines`: a `\r` before the `\n` is dropped, and a final line ending starts no line.
#[derive(Debug, Clone)]
pub struct PieceLines<'t> {
    text: &'t str,
    /// The start of the next line (a char boundary).
    next: usize,
    end: usize,
}

impl<'t> Iterator for PieceLines<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.next >= self.end || self.next >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.next..];
        Some(match find_char(rest, '\n') {
            Some(offset) => {
                self.next += offset + 1;
                let line = &rest[..offset];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => {
                self.next = self.text.len();
                rest
            }
        })
    }
}

impl StrPartKind for LinesKind {
    type Item<'t> = &'t str;
    type Iter<'t, 'k> = PieceLines<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> PieceLines<'t> {
        // The scan for the first line start stops at `end`: a piece inside one long line has
        // no lines, and must not scan the rest of the text to find that out. The lines are
        // then found one search each, so the last one (which may run far past `end`) is read
        // once, not once to bound the piece and again to split it.
        PieceLines {
            text,
            next: line_start(text, start, end),
            end,
        }
    }
}

/// Marker of [`ParallelString::par_split_whitespace`].
#[derive(Debug, Clone, Copy)]
pub struct WhitespaceKind;

impl StrPartKind for WhitespaceKind {
    type Item<'t> = &'t str;
    type Iter<'t, 'k> = SplitWhitespace<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> SplitWhitespace<'t> {
        let (first, last) = word_range(text, start, end, char::is_whitespace);
        text[first..last].split_whitespace()
    }
}

/// Marker of [`ParallelString::par_split_ascii_whitespace`].
#[derive(Debug, Clone, Copy)]
pub struct AsciiWhitespaceKind;

impl StrPartKind for AsciiWhitespaceKind {
    type Item<'t> = &'t str;
    type Iter<'t, 'k> = SplitAsciiWhitespace<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> SplitAsciiWhitespace<'t> {
        let (first, last) = word_range(text, start, end, |c: char| c.is_ascii_whitespace());
        text[first..last].split_ascii_whitespace()
    }
}

/// Marker of [`ParallelString::par_split`], `par_split_terminator` and `par_split_inclusive`,
/// holding the separator.
#[derive(Debug, Clone, Copy)]
pub struct SplitKind<P> {
    separator: P,
    ends: SplitEnds,
}

/// How the parts of a [`SplitKind`] end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SplitEnds {
    /// Before the separator; a final separator is followed by an empty part (`split`).
    Split,
    /// Before the separator; no part after a final separator (`split_terminator`).
    Terminator,
    /// After the separator; no part after a final separator (`split_inclusive`).
    Inclusive,
}

impl<P: CharPattern> SplitKind<P> {
    fn new(separator: P, ends: SplitEnds) -> Self {
        SplitKind { separator, ends }
    }

    /// The first part start in `index..limit`: 0, or just after a separator; `None` if there
    /// is none. The scan stops at `limit`, so a piece without separators costs its own length
    /// only.
    fn part_start(&self, text: &str, index: usize, limit: usize) -> Option<usize> {
        if index == 0 {
            return Some(0);
        }
        // A separator ending at or after `index` starts at most 4 bytes (one char) before it.
        let from = ceil_char_boundary(text, index.saturating_sub(4));
        let to = ceil_char_boundary(text, limit.min(text.len()));
        if from >= to {
            return None;
        }
        // Separators ending before `index` belong to the piece before: at most a few.
        let mut from = from;
        loop {
            let (offset, c) = self.separator.find_in(&text[from..to])?;
            let after = from + offset + c.len_utf8();
            if after >= index {
                return Some(after);
            }
            from = after;
        }
    }
}

/// The sequential side of `par_split` and its kin: the parts starting before `limit`.
#[derive(Debug, Clone)]
pub struct SplitParts<'t, 'k, P> {
    text: &'t str,
    separator: &'k P,
    /// Whether a part keeps its separator.
    inclusive: bool,
    /// The start of the next part, if it is to be yielded.
    next: Option<usize>,
    limit: usize,
}

impl<'t, P: CharPattern> Iterator for SplitParts<'t, '_, P> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let start = self.next.filter(|&start| start < self.limit)?;
        let rest = &self.text[start..];
        match self.separator.find_in(rest) {
            Some((offset, c)) => {
                let after = offset + c.len_utf8();
                self.next = Some(start + after);
                Some(if self.inclusive {
                    &rest[..after]
                } else {
                    &rest[..offset]
                })
            }
            None => {
                self.next = None;
                Some(rest)
            }
        }
    }
}

impl<P: CharPattern> StrPartKind for SplitKind<P> {
    type Item<'t> = &'t str;
    type Iter<'t, 'k>
        = SplitParts<'t, 'k, P>
    where
        P: 'k;

    /// A `split` part can start anywhere from 0 to the length itself (after a final
    /// separator, or in an empty string); the others never start at the length.
    fn positions(&self, text: &str) -> usize {
        match self.ends {
            SplitEnds::Split => text.len() + 1,
            SplitEnds::Terminator | SplitEnds::Inclusive => text.len(),
        }
    }

    fn parts<'t, 'k>(&'k self, text: &'t str, start: usize, end: usize) -> SplitParts<'t, 'k, P> {
        SplitParts {
            text,
            separator: &self.separator,
            inclusive: self.ends == SplitEnds::Inclusive,
            next: self.part_start(text, start, end),
            limit: end,
        }
    }
}

/// The sequential side of `par_match_indices`: the matching chars of a slice, with their
/// offsets in the whole string.
#[derive(Debug, Clone)]
pub struct OffsetMatches<'t, 'k, P> {
    text: &'t str,
    chars: CharIndices<'t>,
    offset: usize,
    pattern: &'k P,
}

impl<'t, P: CharPattern> Iterator for OffsetMatches<'t, '_, P> {
    type Item = (usize, &'t str);

    fn next(&mut self) -> Option<(usize, &'t str)> {
        let (index, c) = self.chars.find(|&(_, c)| self.pattern.matches(c))?;
        let at = self.offset + index;
        Some((at, &self.text[at..at + c.len_utf8()]))
    }
}

/// The matches of `pattern` among the chars starting in `start..end`.
fn offset_matches<'t, 'k, P>(
    text: &'t str,
    pattern: &'k P,
    start: usize,
    end: usize,
) -> OffsetMatches<'t, 'k, P> {
    let offset = ceil_char_boundary(text, start);
    OffsetMatches {
        text,
        chars: text[offset..ceil_char_boundary(text, end)].char_indices(),
        offset,
        pattern,
    }
}

/// Marker of [`ParallelString::par_match_indices`], holding the pattern.
#[derive(Debug, Clone, Copy)]
pub struct MatchIndicesKind<P> {
    pattern: P,
}

impl<P: CharPattern> StrPartKind for MatchIndicesKind<P> {
    type Item<'t> = (usize, &'t str);
    type Iter<'t, 'k>
        = OffsetMatches<'t, 'k, P>
    where
        P: 'k;

    fn parts<'t, 'k>(&'k self, text: &'t str, start: usize, end: usize) -> Self::Iter<'t, 'k> {
        offset_matches(text, &self.pattern, start, end)
    }
}

/// Marker of [`ParallelString::par_matches`], holding the pattern.
#[derive(Debug, Clone, Copy)]
pub struct MatchesKind<P> {
    pattern: P,
}

impl<P: CharPattern> StrPartKind for MatchesKind<P> {
    type Item<'t> = &'t str;
    type Iter<'t, 'k>
        = std::iter::Map<OffsetMatches<'t, 'k, P>, fn((usize, &'t str)) -> &'t str>
    where
        P: 'k;

    fn parts<'t, 'k>(&'k self, text: &'t str, start: usize, end: usize) -> Self::Iter<'t, 'k> {
        offset_matches(text, &self.pattern, start, end).map(|(_, matched)| matched)
    }
}

/// Marker of [`ParallelString::par_encode_utf16`].
#[derive(Debug, Clone, Copy)]
pub struct EncodeUtf16Kind;

impl StrPartKind for EncodeUtf16Kind {
    type Item<'t> = u16;
    type Iter<'t, 'k> = EncodeUtf16<'t>;

    fn parts<'t>(&self, text: &'t str, start: usize, end: usize) -> EncodeUtf16<'t> {
        // A char's code units all come from the piece where the char starts.
        text[ceil_char_boundary(text, start)..ceil_char_boundary(text, end)].encode_utf16()
    }
}
