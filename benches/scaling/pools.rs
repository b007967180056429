//! One pool per (library, thread count), and running a shape on it.

use std::num::NonZero;
use std::time::Duration;

use plotters::style::RGBColor;

use crate::STACK_SIZE;
use crate::shapes::Shape;

/// A library under test.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lib {
    Blitz,
    Rayon,
    Chili,
}

impl Lib {
    pub(crate) const ALL: [Lib; 3] = [Lib::Blitz, Lib::Rayon, Lib::Chili];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Lib::Blitz => "blitz",
            Lib::Rayon => "rayon",
            Lib::Chili => "chili",
        }
    }

    pub(crate) fn color(self) -> RGBColor {
        match self {
            Lib::Blitz => RGBColor(200, 30, 30),
            Lib::Rayon => RGBColor(30, 90, 200),
            Lib::Chili => RGBColor(30, 150, 60),
        }
    }
}

enum Pool {
    Blitz(blitz::ThreadPool),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
}

/// One library's pool of one size.
pub(crate) struct Lane {
    pub(crate) lib: Lib,
    pub(crate) threads: usize,
    pool: Pool,
}

impl Lane {
    pub(crate) fn new(lib: Lib, threads: usize) -> Lane {
        let pool = match lib {
            Lib::Blitz => Pool::Blitz(
                blitz::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .stack_size(STACK_SIZE)
                    .build()
                    .expect("blitz pool"),
            ),
            Lib::Rayon => Pool::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .stack_size(STACK_SIZE)
                    .build()
                    .expect("rayon pool"),
            ),
            Lib::Chili => Pool::Chili(chili::ThreadPool::with_config(chili::Config {
                thread_count: Some(NonZero::new(threads).expect("threads >= 1")),
                ..Default::default()
            })),
        };
        Lane { lib, threads, pool }
    }

    pub(crate) fn supports(&self, shape: &Shape) -> bool {
        match self.lib {
            Lib::Blitz => shape.blitz.is_some(),
            Lib::Rayon => shape.rayon.is_some(),
            Lib::Chili => shape.chili.is_some(),
        }
    }

    /// Runs `shape` on this pool, or `None` if the library has no version of it.
    pub(crate) fn run(&self, shape: &Shape, leaf: Duration) -> Option<u64> {
        match &self.pool {
            Pool::Blitz(p) => shape.blitz.map(|f| p.install_with_worker(|w| f(w, leaf))),
            Pool::Rayon(p) => shape.rayon.map(|f| p.install(|| f(leaf))),
            Pool::Chili(p) => shape.chili.map(|f| f(&mut p.scope(), leaf)),
        }
    }
}
