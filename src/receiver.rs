//! Which method a recursive call on a place names, decided by the type checker.
//!
//! `#[parallel]` sees `l.len()` beside `r.len()` in `fn len(&self)` and cannot tell whether
//! `l` is the impl's own type (behind `&`, `Box`, `Rc` or `Arc`), whose fast copy takes the
//! worker along, or another type with a same-named method (the `Vec` of a leaf). It writes
//! the call as a probe with one `match` arm for each (see [`Which`]):
//!
//! ```text
//! match l.__blitz_probe::<Self>().__blitz_which() {
//!     Which::Own(s, same) => same.__blitz_same(s.__blitz_len(cx)),
//!     Which::Other(_) => l.len(),
//! }
//! ```
//!
//! `__blitz_probe` takes the receiver the way the call would (by value if it is a reference
//! already, else by auto-reference), so a result that borrows from it lives as long as the
//! plain call's would. `__blitz_which` is two traits' method: [`ViaOwn`], implemented for the
//! probe itself only where the receiver reaches `Self` through references and smart pointers
//! ([`Reach`]), and [`ViaOther`], implemented for a reference to any probe. Method lookup
//! tries the probe by value before it auto-references it, so the first applies wherever it
//! can and the second everywhere else. Once inlined, the probe costs nothing.

use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

/// Index of [`Reach`]: the receiver is a reference to `S` itself.
pub struct Here;
/// Index of [`Reach`]: the receiver reaches `S` one pointer further.
pub struct There<I>(PhantomData<I>);

/// A shared reference that reaches `S` by dereferencing `&`, `&mut`, `Box`, `Rc` and `Arc`.
/// `I` records the path, so that at most one impl applies to a type.
pub trait Reach<'a, S: ?Sized + 'a, I> {
    /// The `S` this reaches.
    fn reach(self) -> &'a S;
}

impl<'a, S: ?Sized> Reach<'a, S, Here> for &'a S {
    #[inline(always)]
    fn reach(self) -> &'a S {
        self
    }
}

macro_rules! reach_through {
    ($($ptr:ty),*) => {$(
        impl<'a, S: ?Sized + 'a, U: ?Sized + 'a, I> Reach<'a, S, There<I>> for &'a $ptr
        where
            &'a U: Reach<'a, S, I>,
        {
            #[inline(always)]
            fn reach(self) -> &'a S {
                (&**self).reach()
            }
        }
    )*};
}

reach_through!(&U, &mut U, Box<U>, Rc<U>, Arc<U>);

/// An exclusive reference that reaches `S` by dereferencing `&mut` and `Box`.
pub trait ReachMut<'a, S: ?Sized + 'a, I> {
    /// The `S` this reaches.
    fn reach_mut(self) -> &'a mut S;
}

impl<'a, S: ?Sized> ReachMut<'a, S, Here> for &'a mut S {
    #[inline(always)]
    fn reach_mut(self) -> &'a mut S {
        self
    }
}

macro_rules! reach_mut_through {
    ($($ptr:ty),*) => {$(
        impl<'a, S: ?Sized + 'a, U: ?Sized + 'a, I> ReachMut<'a, S, There<I>> for &'a mut $ptr
        where
            &'a mut U: ReachMut<'a, S, I>,
        {
            #[inline(always)]
            fn reach_mut(self) -> &'a mut S {
                (&mut **self).reach_mut()
            }
        }
    )*};
}

reach_mut_through!(&mut U, Box<U>);

/// A recursive call's receiver, borrowed shared, with the type `S` it may be.
pub struct Probe<'a, S: ?Sized, T: ?Sized> {
    receiver: &'a T,
    own: PhantomData<&'a S>,
}

/// A recursive call's receiver, borrowed exclusively, with the type `S` it may be. The
/// continuation takes the receiver out (see [`ViaOtherMut`]).
pub struct ProbeMut<'a, S: ?Sized, T: ?Sized> {
    receiver: Option<&'a mut T>,
    own: PhantomData<&'a mut S>,
}

/// Starts a probe on a method call's receiver: `x.__blitz_probe::<Self>()`.
pub trait IntoProbe {
    /// The receiver borrowed shared, as a `&self` method call borrows it.
    #[inline(always)]
    fn __blitz_probe<S: ?Sized>(&self) -> Probe<'_, S, Self> {
        Probe {
            receiver: self,
            own: PhantomData,
        }
    }

    /// The receiver borrowed exclusively, as a `&mut self` method call borrows it.
    #[inline(always)]
    fn __blitz_probe_mut<S: ?Sized>(&mut self) -> ProbeMut<'_, S, Self> {
        ProbeMut {
            receiver: Some(self),
            own: PhantomData,
        }
    }
}

impl<T: ?Sized> IntoProbe for T {}

/// What a probe found, for a `match` with one arm per continuation:
///
/// ```text
/// match x.__blitz_probe::<Self>().__blitz_which() {
///     Which::Own(s, same) => same.__blitz_same(s.copy(cx, args)),
///     Which::Other(_) => x.name(args),
/// }
/// ```
///
/// Each arm evaluates its own arguments, so each call gives them their types, closures their
/// parameter types and `&mut` arguments their reborrows, as the plain call does. The other
/// arm is the call exactly as written, on the receiver as written: the probe's reference
/// would start the method lookup one reference further (`&u32`, whose `max` is `Ord`'s for
/// `&u32`), and could not be moved out of for a method that takes the receiver by value. The
/// unbound `Other(_)` leaves the probe's borrow unused there. Both arms are type-checked, so
/// both must have one type: where the receiver is `S`, the other arm calls `S`'s method (the
/// same type) and `same` is [`Same`]; where it is not, `Own` cannot be built (`same` is
/// [`Never`]) and `__blitz_same` turns the copy's result type into the other arm's.
pub enum Which<'a, S: ?Sized, T: ?Sized, K> {
    /// The receiver as an `S`.
    Own(&'a S, K),
    /// The receiver, of another type.
    Other(&'a T),
}

/// [`Which`] for an exclusive receiver.
pub enum WhichMut<'a, S: ?Sized, T: ?Sized, K> {
    /// The receiver as an `S`.
    Own(&'a mut S, K),
    /// The receiver, of another type.
    Other(&'a mut T),
}

/// The `Own` arm is the one taken: its result is the `match`'s.
#[derive(Clone, Copy)]
pub struct Same;

impl Same {
    /// The copy's result, unchanged.
    #[inline(always)]
    pub fn __blitz_same<R>(self, result: R) -> R {
        result
    }

    /// An argument of the copy, unchanged.
    #[inline(always)]
    pub fn __blitz_arg<A>(self, arg: A) -> A {
        arg
    }
}

/// The `Own` arm cannot be taken: its result, and the copy's arguments, may have any type.
#[derive(Clone, Copy)]
pub enum Never {}

impl Never {
    /// Unreachable: no `Never` exists.
    #[inline(always)]
    pub fn __blitz_same<R, X>(self, _result: R) -> X {
        match self {}
    }

    /// Unreachable: the argument as whatever type the copy takes.
    #[inline(always)]
    pub fn __blitz_arg<A, X>(self, _arg: A) -> X {
        match self {}
    }
}

/// The probe of a receiver that reaches `S`.
pub trait ViaOwn<'a, S: ?Sized + 'a, T: ?Sized + 'a, I> {
    /// The receiver as an `S`.
    fn __blitz_which(self) -> Which<'a, S, T, Same>;
}

impl<'a, S: ?Sized + 'a, T: ?Sized + 'a, I> ViaOwn<'a, S, T, I> for Probe<'a, S, T>
where
    &'a T: Reach<'a, S, I>,
{
    #[inline(always)]
    fn __blitz_which(self) -> Which<'a, S, T, Same> {
        Which::Own(self.receiver.reach(), Same)
    }
}

/// The probe of any other receiver.
pub trait ViaOther<'a, S: ?Sized + 'a, T: ?Sized + 'a> {
    /// The receiver as it is.
    fn __blitz_which(self) -> Which<'a, S, T, Never>;
}

impl<'a, S: ?Sized + 'a, T: ?Sized + 'a> ViaOther<'a, S, T> for &Probe<'a, S, T> {
    #[inline(always)]
    fn __blitz_which(self) -> Which<'a, S, T, Never> {
        Which::Other(self.receiver)
    }
}

/// [`ViaOwn`] for an exclusive receiver.
pub trait ViaOwnMut<'a, S: ?Sized + 'a, T: ?Sized + 'a, I> {
    /// The receiver as an `S`.
    fn __blitz_which(self) -> WhichMut<'a, S, T, Same>;
}

impl<'a, S: ?Sized + 'a, T: ?Sized + 'a, I> ViaOwnMut<'a, S, T, I> for ProbeMut<'a, S, T>
where
    &'a mut T: ReachMut<'a, S, I>,
{
    #[inline(always)]
    fn __blitz_which(self) -> WhichMut<'a, S, T, Same> {
        WhichMut::Own(self.receiver.expect(TAKEN).reach_mut(), Same)
    }
}

/// Why a probe's receiver is present: a probe is a temporary, read once.
const TAKEN: &str = "a probe's receiver is taken once";

/// [`ViaOther`] for an exclusive receiver. The lookup reaches it by auto-reference, so it
/// takes the probe by `&mut` and the receiver out of it, with its full lifetime.
pub trait ViaOtherMut<'a, S: ?Sized + 'a, T: ?Sized + 'a> {
    /// The receiver as it is.
    fn __blitz_which(self) -> WhichMut<'a, S, T, Never>;
}

impl<'a, S: ?Sized + 'a, T: ?Sized + 'a> ViaOtherMut<'a, S, T> for &mut ProbeMut<'a, S, T> {
    #[inline(always)]
    fn __blitz_which(self) -> WhichMut<'a, S, T, Never> {
        WhichMut::Other(self.receiver.take().expect(TAKEN))
    }
}
#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use super::{IntoProbe, ViaOther, ViaOtherMut, ViaOwn, ViaOwnMut, Which, WhichMut};
    use std::rc::Rc;
    use std::sync::Arc;

    struct Own(u32);

    impl Own {
        fn len(&self) -> usize {
            self.0 as usize
        }
        fn bump(&mut self, by: u32) -> u32 {
            self.0 += by;
            self.0
        }
    }

    /// Which arm a shared probe on `x` takes: 1 for the own type's, 2 for the other.
    macro_rules! picked {
        ($x:expr) => {
            match $x.__blitz_probe::<Own>().__blitz_which() {
                #[allow(unreachable_patterns)]
                Which::Own(_, same) => same.__blitz_same(1),
                Which::Other(_) => 2,
            }
        };
    }

    #[test]
    fn own_type_behind_any_pointer_takes_the_own_arm() {
        let own = Own(3);
        let by_ref = &own;
        let boxed = Box::new(Own(3));
        let boxed_ref = &boxed;
        let rc = Rc::new(Own(3));
        let arc = Arc::new(Box::new(Own(3)));
        let mut m = Own(3);
        let by_mut = &mut m;
        assert_eq!(picked!(own), 1);
        assert_eq!(picked!(by_ref), 1);
        assert_eq!(picked!(boxed), 1);
        assert_eq!(picked!(boxed_ref), 1);
        assert_eq!(picked!(rc), 1);
        assert_eq!(picked!(arc), 1);
        assert_eq!(picked!(by_mut), 1);
        assert_eq!(picked!(&own), 1);
    }

    #[test]
    fn other_types_take_the_call_as_written() {
        let v = vec![1u8, 2];
        let by_ref = &v;
        let boxed = Box::new([1u8; 4]);
        let s = "abc";
        assert_eq!(picked!(v), 2);
        assert_eq!(picked!(by_ref), 2);
        assert_eq!(picked!(boxed), 2);
        assert_eq!(picked!(s), 2);
        // The own arm's result type is free: here `u64` where the other arm's is `usize`.
        let got: usize = match by_ref.__blitz_probe::<Own>().__blitz_which() {
            #[allow(unreachable_patterns)]
            Which::Own(o, same) => same.__blitz_same(o.len() as u64),
            Which::Other(v) => v.len(),
        };
        assert_eq!(got, 2);
    }

    #[test]
    fn exclusive_probes_pick_by_type_and_hand_the_receiver_on() {
        let mut boxed = Box::new(Own(1));
        let by_mut = &mut boxed;
        let got = match by_mut.__blitz_probe_mut::<Own>().__blitz_which() {
            WhichMut::Own(o, same) => same.__blitz_same(o.bump(4)),
            WhichMut::Other(_) => 0,
        };
        assert_eq!((got, boxed.0), (5, 5));

        let mut v = vec![1u32];
        let got = match v.__blitz_probe_mut::<Own>().__blitz_which() {
            #[allow(unreachable_patterns)]
            WhichMut::Own(o, same) => same.__blitz_same(o.bump(1)),
            WhichMut::Other(v) => {
                v.push(9);
                v.len() as u32
            }
        };
        assert_eq!((got, v), (2, vec![1, 9]));
    }

    #[test]
    fn a_result_borrowed_from_the_receiver_outlives_the_probe() {
        let data = vec![4u32, 5];
        let mut more = vec![6u32];
        // The probes borrow `*r` and `*m`, not the bindings, so the results outlive them.
        let (got, got_mut): (&u32, &mut u32) = {
            let r: &Vec<u32> = &data;
            let m: &mut Vec<u32> = &mut more;
            let got = match r.__blitz_probe::<Own>().__blitz_which() {
                #[allow(unreachable_patterns)]
                Which::Own(_, same) => same.__blitz_same(&0),
                Which::Other(v) => &v[0],
            };
            let got_mut = match m.__blitz_probe_mut::<Own>().__blitz_which() {
                #[allow(unreachable_patterns)]
                WhichMut::Own(_, same) => same.__blitz_same(()),
                WhichMut::Other(v) => &mut v[0],
            };
            (got, got_mut)
        };
        *got_mut += 1;
        assert_eq!((*got, more[0]), (4, 7));
    }
}
