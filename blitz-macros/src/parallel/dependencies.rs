//! What the statements of a run read, bind and change, by name: whether a statement can
//! join a run of statements forked together (see `Rewriter::fork_statements`).
//!
//! A macro sees no types, so the analysis is by identifier and conservative: any identifier
//! in a branch counts as a read of the binding of that name.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Item, Stmt};

use super::recursion::Callee;
use super::rewrite::is_assign_op;
use crate::common::{self, assignees, pat_bindings};

/// `place = value` or `place op= value` where `place` is a binding (`x`), as a statement
/// form whose value can be forked and assigned after the join.
pub(super) fn assignment(e: &Expr) -> Option<(&Expr, TokenStream, &Expr)> {
    let (place, op, value) = match e {
        Expr::Assign(a) => (&*a.left, a.eq_token.to_token_stream(), &*a.right),
        Expr::Binary(b) if is_assign_op(&b.op) => (&*b.left, b.op.to_token_stream(), &*b.right),
        _ => return None,
    };
    common::lone_ident(place).map(|_| (place, op, value))
}

/// What one statement of a run binds, reads and changes, by name (conservative: any
/// identifier counts as a read).
#[derive(Default, Clone)]
pub(super) struct StmtNames {
    /// Bound by a `let`.
    lets: HashSet<String>,
    /// Assigned after the join (an assignment statement's binding).
    assigned: HashSet<String>,
    /// Every identifier of what its branch runs.
    reads: HashSet<String>,
    /// Roots of the places its branch assigns to, borrows `&mut`, or calls a method on at
    /// its top (`out.extend(f(a))`): the places of these that the branches use must not
    /// overlap (see [`PlaceUses`]).
    changes: HashSet<String>,
    /// What its branch runs.
    branches: Vec<Expr>,
}

impl StmtNames {
    pub(super) fn of(stmt: &Stmt, callee: &Callee) -> StmtNames {
        let mut names = StmtNames::default();
        let mut finder = ChangeFinder {
            callee,
            out: &mut names.changes,
        };
        let branch = match stmt {
            Stmt::Local(l) => {
                names
                    .lets
                    .extend(pat_bindings(&l.pat).iter().map(|p| p.ident.to_string()));
                l.init.as_ref().map(|i| &*i.expr)
            }
            Stmt::Expr(e, _) => match assignment(e) {
                Some((place, _, value)) => {
                    names.assigned.extend(idents(place.to_token_stream()));
                    Some(value)
                }
                None => {
                    finder.method_statement(e);
                    Some(e)
                }
            },
            _ => None,
        };
        if let Some(e) = branch {
            finder.visit_expr(e);
            // `let a = f(x) + extra.pop().unwrap_or(0);`, `v.iter().for_each(|l|
            // out.extend(g(l)));`, `let b = f(q.remove(0));`.
            names.changes.extend(mutated_receivers([e], callee));
            names.reads = idents(e.to_token_stream());
            names.branches.push(e.clone());
        }
        names
    }
}

/// Why a statement cannot join a run.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Conflict {
    /// It uses or rebinds an earlier statement's result, the name held.
    Depends(String),
    /// It and an earlier statement change something the other one uses.
    Changes,
}

/// The names of the run of statements gathered so far.
#[derive(Default, Clone)]
pub(super) struct RunNames(StmtNames);

impl RunNames {
    /// Whether `next` cannot join the run: it reads what an earlier statement binds or
    /// assigns (it depends on that result), rebinds it with a `let` (the run's results share
    /// one `let`, and assignments follow it), or its branch and an earlier one would both hold
    /// a place that one of them changes (see [`PlaceUses`]). Assigning what an earlier
    /// statement binds or assigns is fine: the assignments run after the join, in order.
    pub(super) fn conflict_with(&self, next: &StmtNames, callee: &Callee) -> Option<Conflict> {
        let run = &self.0;
        // The first in name order of the run's results that `next` reads or rebinds.
        let bound = next
            .reads
            .iter()
            .chain(&next.lets)
            .filter(|n| run.lets.contains(*n) || run.assigned.contains(*n))
            .min();
        if let Some(name) = bound {
            return Some(Conflict::Depends(name.clone()));
        }
        let roots: HashSet<String> = run.changes.union(&next.changes).cloned().collect();
        let uses = |branches: &[Expr]| {
            let mut uses = PlaceUses::default();
            for e in branches {
                uses.extend(PlaceUses::of(e, &roots, callee));
            }
            uses
        };
        uses(&run.branches)
            .conflict(&uses(&next.branches))
            .then_some(Conflict::Changes)
    }

    /// What the run's statements run, in order.
    pub(super) fn branches(&self) -> &[Expr] {
        &self.0.branches
    }

    pub(super) fn add(&mut self, names: StmtNames) {
        let run = &mut self.0;
        run.lets.extend(names.lets);
        run.assigned.extend(names.assigned);
        run.reads.extend(names.reads);
        run.changes.extend(names.changes);
        run.branches.extend(names.branches);
    }
}

/// Collects the roots of places a branch may change (outside nested items): assigned to,
/// borrowed `&mut`, the receiver of a method call whose value is discarded (`out.push(x);`,
/// which is there for what it does to `out`), the arguments of a fn call whose value is
/// discarded (`bump(counter);`: through a shared reference, a cell or an atomic still
/// changes), and every name in a macro call that may change what it names (see
/// [`macro_may_change`]).
struct ChangeFinder<'a> {
    callee: &'a Callee,
    out: &'a mut HashSet<String>,
}

impl ChangeFinder<'_> {
    fn method_statement(&mut self, e: &Expr) {
        if let Expr::MethodCall(m) = e
            && !self.callee.is_call(e)
            && let Some(root) = place_root(&m.receiver)
        {
            self.out.insert(root);
        }
    }
}

/// The arguments of `e` if it is a call, not a recursive one, made as a statement (its value
/// discarded), each without a leading `&`: the places it is there to change.
fn effect_call_arguments<'e>(
    e: &'e Expr,
    callee: &Callee,
) -> Option<impl Iterator<Item = &'e Expr>> {
    match e {
        Expr::Call(c) if !callee.is_call(e) => Some(c.args.iter().map(|a| match a {
            Expr::Reference(r) => &*r.expr,
            a => a,
        })),
        _ => None,
    }
}

/// Whether a macro call may change what it names: every macro but std's formatting,
/// assertion and panic macros, which only borrow their arguments shared (a macro's tokens are
/// not an expression to analyse).
fn macro_may_change(mac: &syn::Macro) -> bool {
    const SHARED_ONLY: &[&str] = &[
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "eprint",
        "eprintln",
        "format",
        "format_args",
        "matches",
        "panic",
        "print",
        "println",
        "todo",
        "unimplemented",
        "unreachable",
    ];
    mac.path
        .segments
        .last()
        .is_none_or(|s| !SHARED_ONLY.contains(&s.ident.to_string().as_str()))
}

impl<'ast> Visit<'ast> for ChangeFinder<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let targets = match e {
            Expr::Assign(a) => assignees(&a.left),
            Expr::Binary(b) if is_assign_op(&b.op) => vec![&*b.left],
            Expr::Reference(r) if r.mutability.is_some() => vec![&*r.expr],
            _ => Vec::new(),
        };
        self.out.extend(targets.into_iter().filter_map(place_root));
        syn::visit::visit_expr(self, e);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Stmt::Expr(e, semi) = stmt {
            self.method_statement(e);
            if semi.is_some()
                && let Some(args) = effect_call_arguments(e, self.callee)
            {
                self.out.extend(args.filter_map(place_root));
            }
        }
        syn::visit::visit_stmt(self, stmt);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if macro_may_change(mac) {
            self.out.extend(idents(mac.tokens.clone()));
        }
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// The binding a place expression starts from: `x` of `x`, `x.a[i]`, `*x`, `(x)`.
pub(super) fn place_root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(_) => common::lone_ident(e).map(ToString::to_string),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Paren(p) => place_root(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        _ => None,
    }
}

/// Every identifier in `tokens`, including those a string literal names between braces: a
/// format string's inline arguments (`format!("{a}")`, `{x:>width$}`) read bindings that are
/// not tokens of their own.
fn idents(tokens: TokenStream) -> HashSet<String> {
    fn go(tokens: TokenStream, out: &mut HashSet<String>) {
        for tt in tokens {
            match tt {
                TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                TokenTree::Group(g) => go(g.stream(), out),
                TokenTree::Literal(lit) => braced_words(&lit.to_string(), out),
                TokenTree::Punct(_) => {}
            }
        }
    }
    let mut out = HashSet::new();
    go(tokens, &mut out);
    out
}

/// The identifier-like words between `{` and `}` in the source text of a literal (a string's
/// format placeholders). More than a format string names (an escaped `{{x}}` counts too): a
/// word too many only keeps two statements apart.
fn braced_words(literal: &str, out: &mut HashSet<String>) {
    let mut keep = |word: String| {
        if !word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit()) {
            out.insert(word);
        }
    };
    let mut depth = 0usize;
    let mut word = String::new();
    for c in literal.chars() {
        if depth > 0 && (c == '_' || c.is_alphanumeric()) {
            word.push(c);
            continue;
        }
        keep(std::mem::take(&mut word));
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    keep(word);
}

/// The places of some bindings that one branch of a fork names, each as a field path from the
/// binding (`self.left`, `cnt`, `buf` for `buf[i]`), and whether the branch may use it
/// exclusively. Two branches that name overlapping places (one path a prefix of the other),
/// one of them exclusively, would both hold it at once: sequentially the borrows follow each
/// other, but the closures of a join would each capture it. Closures capture disjoint fields
/// apart, so `self.left.f()` and `self.right.f()` do not overlap, and shared reads
/// (`self.depth`, `*cnt`) do not conflict with each other.
///
/// Exclusive uses: an exclusive parameter (a `&mut` reference or `&mut self`) named on its own
/// (passed on, it is reborrowed `&mut`), the receiver of a method call (which may take
/// `&mut self`), and the place of a `&mut` borrow or an assignment.
#[derive(Default)]
pub(super) struct PlaceUses(Vec<(Vec<String>, bool)>);

impl PlaceUses {
    /// What the operand branches `branches` name of the places they could conflict on: the
    /// fn's exclusive parameters and whatever any of them borrows `&mut` or assigns.
    pub(super) fn of_branches<'e>(
        branches: impl IntoIterator<Item = &'e Expr> + Clone,
        callee: &Callee,
    ) -> Vec<PlaceUses> {
        let mut roots = HashSet::new();
        for e in branches.clone() {
            ChangeFinder {
                callee,
                out: &mut roots,
            }
            .visit_expr(e);
        }
        roots.extend(mutated_receivers(branches.clone(), callee));
        branches
            .into_iter()
            .map(|e| PlaceUses::of(e, &roots, callee))
            .collect()
    }

    /// The places of `roots` and of the fn's exclusive parameters that `e` names.
    fn of(e: &Expr, roots: &HashSet<String>, callee: &Callee) -> PlaceUses {
        let roots: HashSet<String> = roots.union(&callee.exclusive_params).cloned().collect();
        let mut finder = PlaceFinder {
            callee,
            roots: &roots,
            params: &callee.exclusive_params,
            locals: Vec::new(),
            out: PlaceUses::default(),
        };
        finder.visit_expr(e);
        finder.out
    }

    /// Whether `self` and `other` name an overlapping place, one of them exclusively.
    pub(super) fn conflict(&self, other: &PlaceUses) -> bool {
        let overlap = |a: &[String], b: &[String]| a.iter().zip(b).all(|(x, y)| x == y);
        self.0.iter().any(|(a, a_excl)| {
            other
                .0
                .iter()
                .any(|(b, b_excl)| (*a_excl || *b_excl) && overlap(a, b))
        })
    }

    pub(super) fn extend(&mut self, other: PlaceUses) {
        self.0.extend(other.0);
    }
}

/// Whether an operand between two forked calls (`f(a) + g(x) + f(b)`) changes a place that a
/// forked call uses, or uses one that a call changes. It runs after the join, where
/// sequentially it ran between the calls; the later call's arguments, evaluated before the
/// join, would see the place before its change (or the operand would see it after a change
/// it sequentially preceded). A method call's receiver in such an operand counts as changed:
/// without types, `st.pop()` and `st.len()` look alike.
pub(super) fn between_conflicts(calls: &[&Expr], between: &[&Expr], callee: &Callee) -> bool {
    if between.is_empty() {
        return false;
    }
    let mut roots = HashSet::new();
    for &e in calls.iter().chain(between) {
        ChangeFinder {
            callee,
            out: &mut roots,
        }
        .visit_expr(e);
    }
    for &e in between {
        ReceiverFinder(&mut roots).visit_expr(e);
    }
    let call_uses: Vec<PlaceUses> = calls
        .iter()
        .map(|e| PlaceUses::of(e, &roots, callee))
        .collect();
    between.iter().any(|e| {
        let uses = PlaceUses::of(e, &roots, callee);
        call_uses.iter().any(|call| uses.conflict(call))
    })
}

/// The roots of the places `exprs` may change: assigned to, borrowed `&mut`, or the receiver
/// of a method call (which may take `&mut self`).
pub(super) fn changed_roots<'e>(
    exprs: impl IntoIterator<Item = &'e Expr> + Clone,
    callee: &Callee,
) -> HashSet<String> {
    let mut roots = assigned_roots(exprs.clone(), callee);
    for e in exprs {
        ReceiverFinder(&mut roots).visit_expr(e);
    }
    roots
}

/// The roots of the places `exprs` assign to or borrow `&mut`, or call a method on for its
/// effect at statement level (see [`ChangeFinder`]).
pub(super) fn assigned_roots<'e>(
    exprs: impl IntoIterator<Item = &'e Expr>,
    callee: &Callee,
) -> HashSet<String> {
    let mut roots = HashSet::new();
    for e in exprs {
        ChangeFinder {
            callee,
            out: &mut roots,
        }
        .visit_expr(e);
    }
    roots
}

/// The roots of the receivers of calls in `exprs` to methods that look like they change
/// their receiver: `push`, `pop`, `remove`, `insert`, `take`, `next`, `..._mut` and the like
/// (without types, a name is all there is). Receivers reached through a shared reference
/// parameter (`&self`, `v: &[T]`) cannot change, and the fn's own recursive calls do not count.
pub(super) fn mutated_receivers<'e>(
    exprs: impl IntoIterator<Item = &'e Expr>,
    callee: &Callee,
) -> HashSet<String> {
    struct Finder<'a> {
        callee: &'a Callee,
        out: HashSet<String>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if !self.callee.is_call(&Expr::MethodCall(m.clone()))
                && looks_mutating(&m.method.to_string())
                && let Some(root) = place_root(&m.receiver)
                && !self.callee.shared_params.contains(&root)
            {
                self.out.insert(root);
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'ast Item) {}
    }
    let mut finder = Finder {
        callee,
        out: HashSet::new(),
    };
    for e in exprs {
        finder.visit_expr(e);
    }
    finder.out
}

/// Whether a method of this name usually changes its receiver (std's collections, iterators,
/// cells and options).
fn looks_mutating(method: &str) -> bool {
    const NAMES: &[&str] = &[
        "append",
        "clear",
        "dedup",
        "dedup_by",
        "dedup_by_key",
        "drain",
        "entry",
        "extend",
        "extend_from_slice",
        "fill",
        "fill_with",
        "get_or_insert",
        "get_or_insert_with",
        "insert",
        "next",
        "next_back",
        "nth",
        "pop",
        "pop_back",
        "pop_first",
        "pop_front",
        "pop_last",
        "push",
        "push_back",
        "push_front",
        "push_str",
        "remove",
        "remove_entry",
        "replace",
        "reserve",
        "resize",
        "resize_with",
        "retain",
        "reverse",
        "rotate_left",
        "rotate_right",
        "set",
        "shrink_to_fit",
        "sort",
        "sort_by",
        "sort_by_key",
        "sort_unstable",
        "sort_unstable_by",
        "sort_unstable_by_key",
        "split_off",
        "swap",
        "swap_remove",
        "take",
        "truncate",
        "write",
        "lock",
        "fetch_add",
        "fetch_sub",
        "store",
        "increment",
        "inc",
        "dec",
        "bump",
        "advance",
        "consume",
        "update",
        "add",
        "put",
        "enqueue",
        "dequeue",
        "allocate",
        "alloc",
        "reset",
        "make_ascii_uppercase",
        "make_ascii_lowercase",
        "make_contiguous",
        "select_nth_unstable",
        "select_nth_unstable_by",
        "select_nth_unstable_by_key",
        "sort_by_cached_key",
        "sort_floats",
        "copy_from_slice",
        "clone_from_slice",
        "clone_from",
        "copy_within",
        "swap_with_slice",
        "extend_from_within",
        "insert_str",
        "replace_range",
        "retain_mut",
        "extract_if",
        "set_len",
        "shrink_to",
        "reserve_exact",
        "try_reserve",
        "try_reserve_exact",
        "or_insert",
        "or_insert_with",
        "or_default",
        "and_modify",
        "get_or_init",
        "compare_exchange",
        "compare_exchange_weak",
        "write_all",
        "write_str",
        "write_fmt",
        "flush",
        "read",
        "read_exact",
        "read_line",
        "read_to_end",
        "read_to_string",
        "seek",
        "shuffle",
        "gen",
        "gen_range",
        "random",
        "random_range",
        "next_u32",
        "next_u64",
        "fill_bytes",
    ];
    method.ends_with("_mut")
        || method.starts_with("push_")
        || method.starts_with("pop_")
        || method.starts_with("fetch_")
        || NAMES.contains(&method)
}

/// Whether `e` names any of `roots` (as an identifier, or in a format string).
pub(super) fn names_any(e: &Expr, roots: &HashSet<String>) -> bool {
    !roots.is_empty() && !idents(e.to_token_stream()).is_disjoint(roots)
}

/// Collects the roots of method-call receivers (outside nested items).
struct ReceiverFinder<'a>(&'a mut HashSet<String>);

impl<'ast> Visit<'ast> for ReceiverFinder<'_> {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let Some(root) = place_root(&m.receiver) {
            self.0.insert(root);
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

/// Whether any two of `uses` conflict.
pub(super) fn any_conflict(uses: &[PlaceUses]) -> bool {
    uses.iter()
        .enumerate()
        .any(|(i, a)| uses[i + 1..].iter().any(|b| a.conflict(b)))
}

/// Records the places of `roots` an expression names (outside nested items).
struct PlaceFinder<'a> {
    callee: &'a Callee,
    roots: &'a HashSet<String>,
    /// Roots all of whose uses are exclusive.
    params: &'a HashSet<String>,
    /// The names bound inside the expression where the walk is (by a `let`, a `match` arm, an
    /// `if let`, a closure's or a `for` loop's pattern): a use of one is of that binding, not
    /// of a root of the same name outside, so two branches that each bind a `t` of their own
    /// (`match &mut self.left { Some(t) => t.f(), .. }`) do not share it.
    locals: Vec<String>,
    out: PlaceUses,
}

impl PlaceFinder<'_> {
    /// Records `e` if it is a place of a root (and visits the index expressions in it);
    /// `exclusive` if the context makes the use exclusive. Returns whether it was one.
    fn record(&mut self, e: &Expr, exclusive: bool) -> bool {
        let Some(path) = field_path(e)
            .filter(|path| self.roots.contains(&path[0]) && !self.locals.contains(&path[0]))
        else {
            return false;
        };
        let bare_param = matches!(peel_parens(e), Expr::Path(_)) && self.params.contains(&path[0]);
        self.out.0.push((path, exclusive || bare_param));
        self.visit_indices(e);
        true
    }

    /// Visits the index expressions of a place (`i` in `x.a[i]`).
    fn visit_indices(&mut self, e: &Expr) {
        match e {
            Expr::Field(f) => self.visit_indices(&f.base),
            Expr::Paren(p) => self.visit_indices(&p.expr),
            Expr::Unary(u) => self.visit_indices(&u.expr),
            Expr::Index(i) => {
                self.visit_indices(&i.expr);
                self.visit_expr(&i.index);
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for PlaceFinder<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let recorded = match e {
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) | Expr::Paren(_) => {
                self.record(e, false)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.record(e, false),
            Expr::MethodCall(m) => {
                if !self.record(&m.receiver, true) {
                    self.visit_expr(&m.receiver);
                }
                m.args.iter().for_each(|a| self.visit_expr(a));
                true
            }
            Expr::Reference(r) if r.mutability.is_some() => {
                if !self.record(&r.expr, true) {
                    self.visit_expr(&r.expr);
                }
                true
            }
            Expr::Assign(a) => {
                for place in assignees(&a.left) {
                    if !self.record(place, true) {
                        self.visit_expr(place);
                    }
                }
                self.visit_expr(&a.right);
                true
            }
            Expr::Binary(b) if is_assign_op(&b.op) => {
                if !self.record(&b.left, true) {
                    self.visit_expr(&b.left);
                }
                self.visit_expr(&b.right);
                true
            }
            _ => false,
        };
        if !recorded {
            syn::visit::visit_expr(self, e);
        }
    }

    /// A call made for its effect (see [`ChangeFinder`]) uses its arguments exclusively.
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Stmt::Expr(e @ Expr::Call(c), Some(_)) = stmt
            && let Some(args) = effect_call_arguments(e, self.callee)
        {
            self.visit_expr(&c.func);
            for arg in args {
                if !self.record(arg, true) {
                    self.visit_expr(arg);
                }
            }
            return;
        }
        syn::visit::visit_stmt(self, stmt);
    }

    /// A macro's tokens are not parsed: a root named anywhere in them counts as an exclusive
    /// use of the whole binding.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for name in idents(mac.tokens.clone()) {
            if self.roots.contains(&name) {
                self.out.0.push((vec![name], true));
            }
        }
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        let scope = self.locals.len();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Local(l) => {
                    if let Some(init) = &l.init {
                        self.visit_expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            self.visit_expr(diverge);
                        }
                    }
                    self.bind(&l.pat);
                }
                _ => self.visit_stmt(stmt),
            }
        }
        self.locals.truncate(scope);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        let scope = self.locals.len();
        self.bind(&arm.pat);
        if let Some((_, guard)) = &arm.guard {
            self.visit_expr(guard);
        }
        self.visit_expr(&arm.body);
        self.locals.truncate(scope);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let scope = self.locals.len();
        c.inputs.iter().for_each(|pat| self.bind(pat));
        self.visit_expr(&c.body);
        self.locals.truncate(scope);
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        let scope = self.locals.len();
        self.visit_expr(&i.cond);
        self.bind_lets(&i.cond);
        self.visit_block(&i.then_branch);
        self.locals.truncate(scope);
        if let Some((_, other)) = &i.else_branch {
            self.visit_expr(other);
        }
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let scope = self.locals.len();
        self.visit_expr(&w.cond);
        self.bind_lets(&w.cond);
        self.visit_block(&w.body);
        self.locals.truncate(scope);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let scope = self.locals.len();
        self.bind(&f.pat);
        self.visit_block(&f.body);
        self.locals.truncate(scope);
    }

    fn visit_item(&mut self, _: &'ast Item) {}
}

impl PlaceFinder<'_> {
    /// Brings the bindings of `pat` into scope.
    fn bind(&mut self, pat: &syn::Pat) {
        self.locals
            .extend(pat_bindings(pat).iter().map(|p| p.ident.to_string()));
    }

    /// Brings the bindings of the `let`s of a condition (`if let .. && let ..`) into scope.
    fn bind_lets(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(l) => self.bind(&l.pat),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                self.bind_lets(&b.left);
                self.bind_lets(&b.right);
            }
            Expr::Paren(p) => self.bind_lets(&p.expr),
            _ => {}
        }
    }
}

/// `e` without enclosing parentheses.
fn peel_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => peel_parens(&p.expr),
        _ => e,
    }
}

/// The field path a place expression names: `x` for `x`, `*x` and `x[i]`; `x.a.b` for
/// `x.a.b`. `None` for anything else.
pub(super) fn field_path(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::Path(_) => common::lone_ident(e).map(|i| vec![i.to_string()]),
        Expr::Field(f) => {
            let mut path = field_path(&f.base)?;
            path.push(f.member.to_token_stream().to_string());
            Some(path)
        }
        Expr::Paren(p) => field_path(&p.expr),
        Expr::Index(i) => field_path(&i.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => field_path(&u.expr),
        _ => None,
    }
}
