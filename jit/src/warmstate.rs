//! Warm-up counters, as the original's `warmstate.py`: at each
//! `can_enter_jit` the counter of the loop's green key (the driver and
//! its greens' values) goes up, and a key whose counter reaches the
//! threshold is hot: where the meta-interpreter starts tracing (at the
//! key's next `jit_merge_point`). It gets hot again after as many more
//! closings, so a key whose tracing gave up is tried again after a while
//! (the meta-interpreter decides whether it still wants it). The first
//! merge point of each call of the portal counts apart, against
//! `function_threshold`: an interpreter called often whose loops are
//! short gets traced from its entry too.

use fxhash::FxHashMap as HashMap;
use rpy_llinterp::{LlMachine, LlValue};
use smallvec::SmallVec;
use std::borrow::Cow;

/// The original's default `threshold`: how many closings of a loop make
/// it hot.
pub const DEFAULT_THRESHOLD: u32 = 1039;

/// The original's default `function_threshold`: how many calls of the
/// portal that reach a key's merge point first make it hot.
pub const DEFAULT_FUNCTION_THRESHOLD: u32 = 1619;

/// A green value as part of a key: numbers by value, objects by identity
/// (a green object is the interpreter's code, alive as long as it runs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum GreenValue {
    Word(i64),
    Float(u64),
    Object(usize),
    Null,
    Function(Option<u32>),
    Void,
}

fn green_value(v: &LlValue) -> GreenValue {
    match v {
        LlValue::Signed(n) => GreenValue::Word(*n),
        LlValue::Bool(b) => GreenValue::Word(*b as i64),
        LlValue::Char(c) => GreenValue::Word(*c as i64),
        LlValue::Float(x) => GreenValue::Float(x.to_bits()),
        LlValue::Ptr(Some(obj)) => GreenValue::Object(obj.addr()),
        LlValue::Ptr(None) => GreenValue::Null,
        LlValue::Func(f) => GreenValue::Function(*f),
        LlValue::Void => GreenValue::Void,
    }
}

/// A green value as the report shows it: a number, a string's text, or
/// an object's type (read through `machine`, whose object it is).
fn green_text(v: &LlValue, machine: Option<&LlMachine<'_>>) -> String {
    match v {
        LlValue::Signed(n) => n.to_string(),
        LlValue::Bool(b) => b.to_string(),
        LlValue::Char(c) => format!("{:?}", char::from(*c)),
        LlValue::Float(x) => format!("{x:?}"),
        LlValue::Ptr(None) => "null".into(),
        LlValue::Ptr(Some(obj)) => {
            let text = machine
                .and_then(|m| m.string_bytes(v))
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            match text {
                Some(text) if text.len() <= 40 => format!("{text:?}"),
                Some(text) => format!("{:?}...", text.chars().take(37).collect::<String>()),
                None => match machine.and_then(|m| m.type_name(v)) {
                    Some(name) => format!("<{name}>"),
                    None => format!("<object at 0x{:x}>", obj.addr()),
                },
            }
        }
        LlValue::Func(f) => format!("{f:?}"),
        LlValue::Void => "void".into(),
    }
}

/// A loop's key: its driver and its greens' values. An executable makes
/// one at every merge point of its portals, so a key of a few greens and
/// a driver that lives as long as the program allocate nothing.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GreenKey(Cow<'static, str>, SmallVec<[GreenValue; 3]>);

impl GreenKey {
    pub fn new(driver: &str, greens: &[LlValue]) -> GreenKey {
        GreenKey(
            Cow::Owned(driver.to_string()),
            greens.iter().map(green_value).collect(),
        )
    }

    /// The key of greens that are machine words (an object by its
    /// address, which stays put: see `native`).
    pub fn of_words(driver: Cow<'static, str>, greens: &[u64]) -> GreenKey {
        GreenKey(
            driver,
            greens.iter().map(|w| GreenValue::Word(*w as i64)).collect(),
        )
    }

    pub fn driver(&self) -> &str {
        &self.0
    }
}

/// The greens of a key as the JIT's report shows them (their objects read
/// through `machine`).
pub fn greens_text(greens: &[LlValue], machine: Option<&LlMachine<'_>>) -> Vec<String> {
    greens.iter().map(|v| green_text(v, machine)).collect()
}

/// A loop that got hot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HotLoop {
    pub driver: String,
    /// Its greens, as text.
    pub greens: Vec<String>,
}

pub struct WarmState {
    threshold: u32,
    counters: HashMap<GreenKey, u32>,
    function_threshold: u32,
    /// Per key: the portal calls whose first merge point it was.
    entries: HashMap<GreenKey, u32>,
    /// The keys that got hot, in the order they did.
    pub hot: Vec<HotLoop>,
}

impl WarmState {
    pub fn new(threshold: u32) -> WarmState {
        WarmState::with_function_threshold(threshold, DEFAULT_FUNCTION_THRESHOLD)
    }

    pub fn with_function_threshold(threshold: u32, function_threshold: u32) -> WarmState {
        WarmState {
            threshold: threshold.max(1),
            counters: HashMap::default(),
            function_threshold: function_threshold.max(1),
            entries: HashMap::default(),
            hot: Vec::new(),
        }
    }

    /// New thresholds (from the program's `jit.set_param`); counts so far
    /// stay.
    pub fn set_thresholds(&mut self, threshold: u32, function_threshold: u32) {
        self.threshold = threshold.max(1);
        self.function_threshold = function_threshold.max(1);
    }

    /// A loop of `driver` closed with `greens`: counts it; true when this
    /// closing made it hot.
    pub fn can_enter_jit(
        &mut self,
        driver: &str,
        greens: &[LlValue],
        machine: Option<&LlMachine<'_>>,
    ) -> bool {
        self.closed(GreenKey::new(driver, greens), || {
            greens_text(greens, machine)
        })
    }

    /// The loop of `key` closed: counts it; true when this closing made it
    /// hot (`greens` tells the report its greens).
    pub fn closed(&mut self, key: GreenKey, greens: impl FnOnce() -> Vec<String>) -> bool {
        let counter = match self.counters.get_mut(&key) {
            Some(counter) => counter,
            None => self.counters.entry(key.clone()).or_insert(0),
        };
        *counter += 1;
        if !counter.is_multiple_of(self.threshold) {
            return false;
        }
        if *counter == self.threshold {
            self.hot.push(HotLoop {
                driver: key.driver().to_string(),
                greens: greens(),
            });
        }
        true
    }

    /// A call of the portal reached its first merge point with `key`:
    /// counts it; true when this entry made the key hot.
    pub fn portal_entered(&mut self, key: &GreenKey) -> bool {
        let counter = match self.entries.get_mut(key) {
            Some(counter) => counter,
            None => self.entries.entry(key.clone()).or_insert(0),
        };
        *counter += 1;
        counter.is_multiple_of(self.function_threshold)
    }
}

impl Default for WarmState {
    fn default() -> Self {
        WarmState::new(DEFAULT_THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_gets_hot_at_every_threshold_closings_and_is_reported_once() {
        let mut warm = WarmState::new(3);
        let key = [LlValue::Signed(14)];
        let other = [LlValue::Signed(15)];
        assert!(!warm.can_enter_jit("jitdriver1", &key, None));
        assert!(!warm.can_enter_jit("jitdriver1", &other, None));
        assert!(!warm.can_enter_jit("jitdriver1", &key, None));
        assert!(warm.can_enter_jit("jitdriver1", &key, None));
        assert!(!warm.can_enter_jit("jitdriver1", &key, None));
        assert!(!warm.can_enter_jit("jitdriver1", &key, None));
        assert!(warm.can_enter_jit("jitdriver1", &key, None));
        // Another driver's key of the same greens counts apart.
        assert!(!warm.can_enter_jit("jitdriver2", &key, None));
        assert_eq!(
            warm.hot,
            vec![HotLoop {
                driver: "jitdriver1".into(),
                greens: vec!["14".into()]
            }]
        );
    }

    #[test]
    fn portal_entries_count_apart_against_the_function_threshold() {
        let mut warm = WarmState::with_function_threshold(100, 2);
        let key = GreenKey::new("jitdriver1", &[LlValue::Signed(0)]);
        assert!(!warm.portal_entered(&key));
        assert!(!warm.can_enter_jit("jitdriver1", &[LlValue::Signed(0)], None));
        assert!(warm.portal_entered(&key));
        assert!(warm.hot.is_empty());
    }
}
