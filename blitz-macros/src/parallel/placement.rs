//! Where the fast copy of an annotated fn can live.
//!
//! A free fn's copy is nested inside it. A method's copy cannot be: a nested fn cannot name
//! `Self`. It can be a sibling associated fn, but only in an inherent impl: in a trait impl
//! an item the trait does not declare is an error. An attribute on a method is not told which
//! impl it is in, so the macro reads the enclosing block's header from the source file (the
//! method's span gives the file and line). A method with a visibility is in an inherent impl
//! (trait impl items have none). Where the header cannot be read or is not an inherent impl,
//! the method runs without a copy ([`Placement::Detached`]): still parallel, with one
//! worker lookup per recursive call. So does a fn returning `impl Trait`: its copy's return
//! type would capture the context's type, and so borrow the worker.

use proc_macro2::Span;

use super::expand::contains_impl_trait;

/// Where the copy lives.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Placement {
    /// A free fn: the copy is nested in it.
    Nested,
    /// A method of an inherent impl: the copy is a hidden sibling associated fn.
    Sibling,
    /// A method of a trait impl or trait, or one whose impl is unknown, or a fn returning
    /// `impl Trait`: no copy.
    Detached,
}

pub(super) fn choose(func: &syn::ItemFn, is_method: bool) -> Placement {
    // A copy is generic over the fork context, and an `impl Trait` return type captures that
    // parameter: the worker's instance would return a type that borrows the worker, which
    // the wrapper cannot return. Without a copy, the calls go through the fn itself.
    if matches!(&func.sig.output, syn::ReturnType::Type(_, ty) if contains_impl_trait(ty)) {
        return Placement::Detached;
    }
    if !is_method {
        return Placement::Nested;
    }
    if !matches!(func.vis, syn::Visibility::Inherited) {
        return Placement::Sibling;
    }
    match enclosing_block(func.sig.fn_token.span) {
        Some(Block::InherentImpl) => Placement::Sibling,
        _ => Placement::Detached,
    }
}

/// Whether the fn at `span` is written in an `impl` block (inherent or trait): an associated
/// fn even without a receiver or a mention of `Self`, so `Type::name(..)` calls it.
pub(super) fn is_in_impl(span: Span) -> bool {
    matches!(
        enclosing_block(span),
        Some(Block::InherentImpl | Block::TraitImpl | Block::MacroImpl)
    )
}

/// The kind of block a method is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    InherentImpl,
    TraitImpl,
    /// An impl whose header a `macro_rules!` repetition writes (`impl $($header)* {`): it may
    /// be a trait impl.
    MacroImpl,
    Other,
}

/// Reads the header of the block around `span` from its source file; `None` outside a
/// compiler-run macro (unit tests) or where the file cannot be read.
fn enclosing_block(span: Span) -> Option<Block> {
    if !proc_macro::is_available() {
        return None;
    }
    let span = span.unwrap();
    let text = std::fs::read_to_string(span.local_file()?).ok()?;
    Some(classify(&header_around(&text, span.line(), span.column())?))
}

/// The text between the start of the innermost block open at `line:column` (1-based; the
/// column counts chars) and its `{`, skipping comments and literals.
fn header_around(text: &str, line: usize, column: usize) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut headers: Vec<String> = Vec::new();
    let (mut at_line, mut at_col) = (1usize, 1usize);
    // The text since the last `{`, `}` or `;`, comments and literals replaced by a space:
    // a comment above an item (a doc comment, a licence) is not part of its header.
    let mut header = String::new();
    // How deep the scan is in braces that belong to a header's generics.
    let mut opaque = 0usize;
    let mut i = 0usize;
    // Advances over `n` chars, keeping line and column.
    let step = |i: &mut usize, n: usize, at_line: &mut usize, at_col: &mut usize| {
        for _ in 0..n {
            if chars.get(*i) == Some(&'\n') {
                *at_line += 1;
                *at_col = 1;
            } else {
                *at_col += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        if (at_line, at_col) >= (line, column) {
            return headers.pop();
        }
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let skip = match (c, next) {
            ('/', Some('/')) => chars[i..].iter().position(|&c| c == '\n').unwrap_or(0),
            ('/', Some('*')) => block_comment_len(&chars[i..]),
            ('"', _) => string_len(&chars[i..], 1, 0),
            ('r' | 'b', _) if !ident_char_before(&chars, i) => raw_or_byte_string_len(&chars[i..]),
            ('\'', _) => char_literal_len(&chars[i..]),
            // An attribute's arguments can hold any expression (`cutoff = n < 20`), whose `<`
            // would read as an open generic; no attribute decides what a block is.
            ('#', _) => attribute_len(&chars[i..]),
            _ => 0,
        };
        if skip > 0 {
            header.push(' ');
            step(&mut i, skip, &mut at_line, &mut at_col);
            continue;
        }
        match c {
            // Braces inside a header's generics or an array type (`impl W<{ N + 1 }>`,
            // `[u8; { N }]`) are an expression, not a block: skipped, with what they hold.
            // Inside parentheses they are a block or a closure's body (`spawn(move || { .. })`),
            // which may hold items of its own.
            '{' if opaque > 0 || open_brackets(&header).in_generics_or_square() => opaque += 1,
            '}' if opaque > 0 => opaque -= 1,
            _ if opaque > 0 => {}
            '{' => headers.push(std::mem::take(&mut header)),
            '}' => {
                headers.pop();
                header.clear();
            }
            // A `;` inside brackets (`impl S<[u8; 2]>`) does not end the header; an open `<`
            // does not keep it going (`const SMALL: bool = N < 8;` is a comparison).
            ';' if !open_brackets(&header).in_round_or_square() => header.clear(),
            _ => header.push(c),
        }
        step(&mut i, 1, &mut at_line, &mut at_col);
    }
    None
}

/// How many `(`, `[` and `<` are open at the end of `header`. A `<` opens generics only right
/// after a name or `::` (`Vec<T>`, `impl<T>`, `for<'a>`, `f::<T>`), as formatted Rust writes
/// them; one after a space is a comparison or a shift (`a < b`) and would otherwise hold every
/// later block of the fn in the header. A `>` of `->` or `=>`, or one with no `<` open, closes
/// none.
fn open_brackets(header: &str) -> OpenBrackets {
    let mut open = OpenBrackets::default();
    let mut previous = ' ';
    for c in header.chars() {
        match c {
            '(' => open.round += 1,
            ')' => open.round -= 1,
            '[' => open.square += 1,
            ']' => open.square -= 1,
            '<' if previous.is_alphanumeric() || previous == '_' || previous == ':' => {
                open.angle += 1;
            }
            '>' if open.angle > 0 && previous != '-' && previous != '=' => open.angle -= 1,
            _ => {}
        }
        previous = c;
    }
    open
}

/// The result of [`open_brackets`].
#[derive(Default)]
struct OpenBrackets {
    round: isize,
    square: isize,
    angle: isize,
}

impl OpenBrackets {
    fn in_generics_or_square(&self) -> bool {
        self.square > 0 || self.angle > 0
    }

    fn in_round_or_square(&self) -> bool {
        self.round + self.square > 0
    }
}

/// The length of the attribute (`#[..]` or `#![..]`) at the start of `s`, or 0 if there is
/// none; brackets inside its string and char literals do not count.
fn attribute_len(s: &[char]) -> usize {
    let mut i = 1;
    if s.get(i) == Some(&'!') {
        i += 1;
    }
    while s.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    if s.get(i) != Some(&'[') {
        return 0;
    }
    let mut depth = 0usize;
    while i < s.len() {
        match s[i] {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            '"' => {
                i += string_len(&s[i..], 1, 0);
                continue;
            }
            '\'' => {
                i += char_literal_len(&s[i..]).max(1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    s.len()
}

fn ident_char_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

fn block_comment_len(s: &[char]) -> usize {
    let mut depth = 0usize;
    let mut i = 0;
    while i + 1 < s.len() {
        match (s[i], s[i + 1]) {
            ('/', '*') => {
                depth += 1;
                i += 2;
            }
            ('*', '/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    s.len()
}

/// A string literal whose opening quote is at `open` and that ends with `"` plus `hashes`
/// `#`s (escapes only when `hashes` is 0 and it is not raw).
fn string_len(s: &[char], open: usize, hashes: usize) -> usize {
    let raw = hashes > 0 || (open > 0 && s[..open].contains(&'r'));
    let mut i = open;
    while i < s.len() {
        match s[i] {
            '\\' if !raw => i += 2,
            '"' if s[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes =>
            {
                return i + 1 + hashes;
            }
            _ => i += 1,
        }
    }
    s.len()
}

/// `r"…"`, `r#"…"#`, `b"…"`, `br#"…"#`, `c"…"`-style prefixes; 0 if `s` is not one.
fn raw_or_byte_string_len(s: &[char]) -> usize {
    let mut i = 0;
    if s.first() == Some(&'b') {
        i += 1;
    }
    let raw = s.get(i) == Some(&'r');
    if raw {
        i += 1;
    }
    let hashes = s[i..].iter().take_while(|&&c| c == '#').count();
    if s.get(i + hashes) != Some(&'"') || (i == 0) || (!raw && hashes > 0) {
        return 0;
    }
    string_len(s, i + hashes + 1, hashes)
}

/// A char literal (`'x'`, `'\n'`, `'\u{1F600}'`), or 0 for a lifetime or label.
fn char_literal_len(s: &[char]) -> usize {
    match (s.get(1), s.get(2)) {
        (Some('\\'), _) => s[3..].iter().position(|&c| c == '\'').map_or(0, |p| p + 4),
        (Some(_), Some('\'')) => 3,
        _ => 0,
    }
}

/// Classifies a block header: `impl<..> Type where ..` is inherent, `impl<..> Trait for
/// Type` a trait impl (a `for` outside angle brackets that is not `for<'a>`).
fn classify(header: &str) -> Block {
    // Drop outer attributes: `#[..]` never contains the braces that delimit headers.
    let mut rest = header.trim();
    while let Some(after) = rest.strip_prefix('#') {
        let Some(end) = after.find(']') else {
            return Block::Other;
        };
        rest = after[end + 1..].trim_start();
    }
    let words: Vec<&str> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let first = words.iter().position(|w| {
        !matches!(
            *w,
            "pub" | "crate" | "super" | "self" | "in" | "unsafe" | "default"
        )
    });
    if first.map(|i| words[i]) != Some("impl") {
        return Block::Other;
    }
    // A metavariable is one token tree or fragment, neither of which can hold `Trait for`;
    // a repetition can.
    if rest.contains("$(") {
        return Block::MacroImpl;
    }
    let mut depth = 0i32;
    let bytes: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            '<' => depth += 1,
            '>' if i > 0 && bytes[i - 1] == '-' => {}
            '>' => depth -= 1,
            'f' if depth <= 0
                && !ident_char_before(&bytes, i)
                && bytes[i..].starts_with(&['f', 'o', 'r'])
                && !bytes
                    .get(i + 3)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let after = bytes[i + 3..].iter().find(|c| !c.is_whitespace());
                if after != Some(&'<') {
                    return Block::TraitImpl;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Block::InherentImpl
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_at(src: &str, marker: &str) -> Option<Block> {
        let (line, col) = src
            .lines()
            .enumerate()
            .find_map(|(n, l)| l.find(marker).map(|c| (n + 1, l[..c].chars().count() + 1)))
            .expect("marker");
        header_around(src, line, col).map(|h| classify(&h))
    }

    /// Every method in the workspace's own sources, found by syn, against the scan: the block
    /// the scan reads must be the `impl` or trait syn puts the method in.
    #[test]
    fn the_scan_agrees_with_syn_on_every_method_in_the_workspace() {
        use syn::visit::Visit;
        struct Methods {
            found: Vec<(usize, usize, Block, String)>,
            blocks: Vec<Block>,
        }
        impl<'a> Visit<'a> for Methods {
            fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
                let kind = match i.trait_ {
                    Some(_) => Block::TraitImpl,
                    None => Block::InherentImpl,
                };
                self.blocks.push(kind);
                syn::visit::visit_item_impl(self, i);
                self.blocks.pop();
            }
            fn visit_item_trait(&mut self, i: &'a syn::ItemTrait) {
                self.blocks.push(Block::Other);
                syn::visit::visit_item_trait(self, i);
                self.blocks.pop();
            }
            fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
                let at = f.sig.fn_token.span.start();
                let block = *self.blocks.last().expect("a method is in an impl");
                let name = f.sig.ident.to_string();
                self.found.push((at.line, at.column + 1, block, name));
                syn::visit::visit_impl_item_fn(self, f);
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut dirs = vec![root];
        let (mut files, mut methods, mut wrong) = (0, 0, Vec::new());
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable dir").flatten() {
                let path = entry.path();
                let name = entry.file_name();
                if path.is_dir() {
                    if name != "target" && !name.to_string_lossy().starts_with('.') {
                        dirs.push(path);
                    }
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable file");
                // ui-tests hold files that do not parse on purpose.
                let Ok(file) = syn::parse_file(&text) else {
                    continue;
                };
                files += 1;
                let mut visitor = Methods {
                    found: Vec::new(),
                    blocks: Vec::new(),
                };
                visitor.visit_file(&file);
                for (line, column, want, name) in visitor.found {
                    methods += 1;
                    let got = header_around(&text, line, column).map(|h| classify(&h));
                    if got != Some(want) {
                        wrong.push(format!("{}:{line} `{name}`: {got:?}", path.display()));
                    }
                }
            }
        }
        assert!(
            files > 100 && methods > 500,
            "{files} files, {methods} methods"
        );
        assert!(
            wrong.is_empty(),
            "{} of {methods}:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    #[test]
    fn headers_are_classified() {
        let src = r##"
            // impl Fake for X { fn a() {} }
            /* impl Fake for Y { */
            #[derive(Debug)] struct S;
            impl<T: for<'a> Fn(&'a u8) -> u8> Tree<T> where T: Send {
                const C: char = '{';
                const Q: char = '\'';
                const L: &'static str = r#"}"#;
                fn inherent_here() {}
            }
            impl<'x> fmt::Display for Tree<'x> {
                fn trait_here() { let s = "}"; }
            }
            pub(crate) unsafe impl Send for Tree {
                fn unsafe_trait_here() {}
            }
            trait Size {
                fn default_here(&self) {}
            }
            mod m { fn in_module() { let q = '\''; } }
            /// Sizes of directory trees; `impl` blocks in doc text do not count.
            impl Dir {
                fn after_doc_comment() {}
            }
            // A plain comment.
            /* and a block comment */ impl<T> Trait for Dir2<T> { fn after_comments() {} }
            impl S<[u64; 2]> { fn array_generic() {} }
            impl W<{ 1 + 1 }> where [(); 2]: Sized { fn const_block_generic() {} }
            impl<F: Fn() -> u8> X<F> { fn arrow_in_bound() {} }
            macro_rules! with_header { ($($h:tt)*) => { impl $($h)* { fn in_macro_header() {} } } }
            macro_rules! for_type { ($t:ty) => { impl $t { fn in_macro_type() {} } } }
            #[blitz::parallel(cutoff = n<20)]
            fn fib(n: u64) -> u64 { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }
            impl Node { fn after_a_comparison_in_an_attribute() {} }
            const SMALL: bool = 3 < 8;
            #[doc = "a ] in a string, and a < b"]
            impl Node2 { fn after_a_comparison_in_a_const() {} }
            fn merge(v: &mut [u8], mid: usize) {
                if mid <= v.len() - mid { left() } else { right() }
                struct State<T> { x: T }
                impl<T> Drop for State<T> { fn after_a_comparison_in_a_body(&mut self) {} }
            }
            fn spawns() {
                std::thread::spawn(move || {
                    struct Unwinder;
                    impl Drop for Unwinder { fn in_a_closure_argument(&mut self) {} }
                });
            }
        "##;
        assert_eq!(block_at(src, "fn inherent_here"), Some(Block::InherentImpl));
        assert_eq!(block_at(src, "fn trait_here"), Some(Block::TraitImpl));
        assert_eq!(
            block_at(src, "fn unsafe_trait_here"),
            Some(Block::TraitImpl)
        );
        assert_eq!(block_at(src, "fn default_here"), Some(Block::Other));
        assert_eq!(block_at(src, "fn in_module"), Some(Block::Other));
        assert_eq!(block_at(src, "struct S"), None);
        assert_eq!(
            block_at(src, "fn after_doc_comment"),
            Some(Block::InherentImpl)
        );
        assert_eq!(block_at(src, "fn after_comments"), Some(Block::TraitImpl));
        assert_eq!(block_at(src, "fn in_macro_header"), Some(Block::MacroImpl));
        assert_eq!(block_at(src, "fn in_macro_type"), Some(Block::InherentImpl));
        assert_eq!(
            block_at(src, "fn after_a_comparison_in_a_body"),
            Some(Block::TraitImpl)
        );
        assert_eq!(
            block_at(src, "fn in_a_closure_argument"),
            Some(Block::TraitImpl)
        );
        for inherent in [
            "fn array_generic",
            "fn const_block_generic",
            "fn arrow_in_bound",
            "fn after_a_comparison_in_an_attribute",
            "fn after_a_comparison_in_a_const",
        ] {
            assert_eq!(
                block_at(src, inherent),
                Some(Block::InherentImpl),
                "{inherent}"
            );
        }
    }
}
