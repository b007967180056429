//! The command line.

use std::process::exit;
use std::time::Duration;

use crate::pools::Lib;

pub(crate) const USAGE: &str = "\
usage: cargo bench --bench scaling -- [--threads 1,2,4,8,16,32,64] [--leaf-us 400] [--rounds 5]
                                      [--shape SUBSTRING]... [--libs blitz,rayon,chili]";

/// What to run; see the bench's module docs.
pub(crate) struct Options {
    pub(crate) threads: Vec<usize>,
    pub(crate) leaf: Duration,
    pub(crate) rounds: usize,
    /// Keep the shapes whose name contains one of these (all if empty).
    pub(crate) shapes: Vec<String>,
    pub(crate) libs: Vec<Lib>,
}

impl Options {
    pub(crate) fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
        let mut opts = Options {
            threads: vec![1, 2, 4, 8, 16, 32, 64],
            leaf: Duration::from_micros(400),
            rounds: 5,
            shapes: Vec::new(),
            libs: Lib::ALL.to_vec(),
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            // `--flag value` or `--flag=value`.
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) => (f.to_string(), Some(v.to_string())),
                None => (arg, None),
            };
            if flag == "--bench" {
                continue; // cargo passes it to every bench binary
            }
            if flag == "--help" || flag == "-h" {
                println!("{USAGE}");
                exit(0);
            }
            if !["--threads", "--leaf-us", "--rounds", "--shape", "--libs"].contains(&&*flag) {
                return Err(format!("unknown argument `{flag}`"));
            }
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| format!("`{flag}` needs a value"))?;
            let bad = |what: &str| format!("`{flag} {value}`: expected {what}");
            match &*flag {
                "--threads" => {
                    let mut t: Vec<usize> = value
                        .split(',')
                        .map(|p| p.trim().parse().ok().filter(|&p| p >= 1))
                        .collect::<Option<_>>()
                        .ok_or_else(|| bad("thread counts >= 1, comma-separated"))?;
                    t.sort_unstable();
                    t.dedup();
                    opts.threads = t;
                }
                "--leaf-us" => {
                    let us: u64 = value
                        .parse()
                        .ok()
                        .filter(|&us| us >= 1)
                        .ok_or_else(|| bad("a leaf time in microseconds >= 1"))?;
                    opts.leaf = Duration::from_micros(us);
                }
                "--rounds" => {
                    opts.rounds = value
                        .parse()
                        .ok()
                        .filter(|&r| r >= 1)
                        .ok_or_else(|| bad("a round count >= 1"))?;
                }
                "--shape" => opts.shapes.push(value),
                _ => {
                    let listed: Vec<Lib> = value
                        .split(',')
                        .map(|name| Lib::ALL.into_iter().find(|l| l.name() == name.trim()))
                        .collect::<Option<_>>()
                        .ok_or_else(|| bad("library names among blitz, rayon, chili"))?;
                    // Each once, in the usual order.
                    opts.libs = Lib::ALL
                        .into_iter()
                        .filter(|l| listed.contains(l))
                        .collect();
                }
            }
        }
        Ok(opts)
    }

    pub(crate) fn wants(&self, shape: &str) -> bool {
        self.shapes.is_empty() || self.shapes.iter().any(|s| shape.contains(s.as_str()))
    }
}
