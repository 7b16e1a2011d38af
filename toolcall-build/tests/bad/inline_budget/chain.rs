//! A chain of 105 local types: the inlining budget of 100 runs out and the rest is `{}`.

/// Link 0.
pub struct Link0 {
    /// The next link.
    pub next: Option<Link1>,
}

/// Link 1.
pub struct Link1 {
    /// The next link.
    pub next: Option<Link2>,
}

/// Link 2.
pub struct Link2 {
    /// The next link.
    pub next: Option<Link3>,
}

/// Link 3.
pub struct Link3 {
    /// The next link.
    pub next: Option<Link4>,
}

/// Link 4.
pub struct Link4 {
    /// The next link.
    pub next: Option<Link5>,
}

/// Link 5.
pub struct Link5 {
    /// The next link.
    pub next: Option<Link6>,
}

/// Link 6.
pub struct Link6 {
    /// The next link.
    pub next: Option<Link7>,
}

/// Link 7.
pub struct Link7 {
    /// The next link.
    pub next: Option<Link8>,
}

/// Link 8.
pub struct Link8 {
    /// The next link.
    pub next: Option<Link9>,
}

/// Link 9.
pub struct Link9 {
    /// The next link.
    pub next: Option<Link10>,
}

/// Link 10.
pub struct Link10 {
    /// The next link.
    pub next: Option<Link11>,
}

/// Link 11.
pub struct Link11 {
    /// The next link.
    pub next: Option<Link12>,
}

/// Link 12.
pub struct Link12 {
    /// The next link.
    pub next: Option<Link13>,
}

/// Link 13.
pub struct Link13 {
    /// The next link.
    pub next: Option<Link14>,
}

/// Link 14.
pub struct Link14 {
    /// The next link.
    pub next: Option<Link15>,
}

/// Link 15.
pub struct Link15 {
    /// The next link.
    pub next: Option<Link16>,
}

/// Link 16.
pub struct Link16 {
    /// The next link.
    pub next: Option<Link17>,
}

/// Link 17.
pub struct Link17 {
    /// The next link.
    pub next: Option<Link18>,
}

/// Link 18.
pub struct Link18 {
    /// The next link.
    pub next: Option<Link19>,
}

/// Link 19.
pub struct Link19 {
    /// The next link.
    pub next: Option<Link20>,
}

/// Link 20.
pub struct Link20 {
    /// The next link.
    pub next: Option<Link21>,
}

/// Link 21.
pub struct Link21 {
    /// The next link.
    pub next: Option<Link22>,
}

/// Link 22.
pub struct Link22 {
    /// The next link.
    pub next: Option<Link23>,
}

/// Link 23.
pub struct Link23 {
    /// The next link.
    pub next: Option<Link24>,
}

/// Link 24.
pub struct Link24 {
    /// The next link.
    pub next: Option<Link25>,
}

/// Link 25.
pub struct Link25 {
    /// The next link.
    pub next: Option<Link26>,
}

/// Link 26.
pub struct Link26 {
    /// The next link.
    pub next: Option<Link27>,
}

/// Link 27.
pub struct Link27 {
    /// The next link.
    pub next: Option<Link28>,
}

/// Link 28.
pub struct Link28 {
    /// The next link.
    pub next: Option<Link29>,
}

/// Link 29.
pub struct Link29 {
    /// The next link.
    pub next: Option<Link30>,
}

/// Link 30.
pub struct Link30 {
    /// The next link.
    pub next: Option<Link31>,
}

/// Link 31.
pub struct Link31 {
    /// The next link.
    pub next: Option<Link32>,
}

/// Link 32.
pub struct Link32 {
    /// The next link.
    pub next: Option<Link33>,
}

/// Link 33.
pub struct Link33 {
    /// The next link.
    pub next: Option<Link34>,
}

/// Link 34.
pub struct Link34 {
    /// The next link.
    pub next: Option<Link35>,
}

/// Link 35.
pub struct Link35 {
    /// The next link.
    pub next: Option<Link36>,
}

/// Link 36.
pub struct Link36 {
    /// The next link.
    pub next: Option<Link37>,
}

/// Link 37.
pub struct Link37 {
    /// The next link.
    pub next: Option<Link38>,
}

/// Link 38.
pub struct Link38 {
    /// The next link.
    pub next: Option<Link39>,
}

/// Link 39.
pub struct Link39 {
    /// The next link.
    pub next: Option<Link40>,
}

/// Link 40.
pub struct Link40 {
    /// The next link.
    pub next: Option<Link41>,
}

/// Link 41.
pub struct Link41 {
    /// The next link.
    pub next: Option<Link42>,
}

/// Link 42.
pub struct Link42 {
    /// The next link.
    pub next: Option<Link43>,
}

/// Link 43.
pub struct Link43 {
    /// The next link.
    pub next: Option<Link44>,
}

/// Link 44.
pub struct Link44 {
    /// The next link.
    pub next: Option<Link45>,
}

/// Link 45.
pub struct Link45 {
    /// The next link.
    pub next: Option<Link46>,
}

/// Link 46.
pub struct Link46 {
    /// The next link.
    pub next: Option<Link47>,
}

/// Link 47.
pub struct Link47 {
    /// The next link.
    pub next: Option<Link48>,
}

/// Link 48.
pub struct Link48 {
    /// The next link.
    pub next: Option<Link49>,
}

/// Link 49.
pub struct Link49 {
    /// The next link.
    pub next: Option<Link50>,
}

/// Link 50.
pub struct Link50 {
    /// The next link.
    pub next: Option<Link51>,
}

/// Link 51.
pub struct Link51 {
    /// The next link.
    pub next: Option<Link52>,
}

/// Link 52.
pub struct Link52 {
    /// The next link.
    pub next: Option<Link53>,
}

/// Link 53.
pub struct Link53 {
    /// The next link.
    pub next: Option<Link54>,
}

/// Link 54.
pub struct Link54 {
    /// The next link.
    pub next: Option<Link55>,
}

/// Link 55.
pub struct Link55 {
    /// The next link.
    pub next: Option<Link56>,
}

/// Link 56.
pub struct Link56 {
    /// The next link.
    pub next: Option<Link57>,
}

/// Link 57.
pub struct Link57 {
    /// The next link.
    pub next: Option<Link58>,
}

/// Link 58.
pub struct Link58 {
    /// The next link.
    pub next: Option<Link59>,
}

/// Link 59.
pub struct Link59 {
    /// The next link.
    pub next: Option<Link60>,
}

/// Link 60.
pub struct Link60 {
    /// The next link.
    pub next: Option<Link61>,
}

/// Link 61.
pub struct Link61 {
    /// The next link.
    pub next: Option<Link62>,
}

/// Link 62.
pub struct Link62 {
    /// The next link.
    pub next: Option<Link63>,
}

/// Link 63.
pub struct Link63 {
    /// The next link.
    pub next: Option<Link64>,
}

/// Link 64.
pub struct Link64 {
    /// The next link.
    pub next: Option<Link65>,
}

/// Link 65.
pub struct Link65 {
    /// The next link.
    pub next: Option<Link66>,
}

/// Link 66.
pub struct Link66 {
    /// The next link.
    pub next: Option<Link67>,
}

/// Link 67.
pub struct Link67 {
    /// The next link.
    pub next: Option<Link68>,
}

/// Link 68.
pub struct Link68 {
    /// The next link.
    pub next: Option<Link69>,
}

/// Link 69.
pub struct Link69 {
    /// The next link.
    pub next: Option<Link70>,
}

/// Link 70.
pub struct Link70 {
    /// The next link.
    pub next: Option<Link71>,
}

/// Link 71.
pub struct Link71 {
    /// The next link.
    pub next: Option<Link72>,
}

/// Link 72.
pub struct Link72 {
    /// The next link.
    pub next: Option<Link73>,
}

/// Link 73.
pub struct Link73 {
    /// The next link.
    pub next: Option<Link74>,
}

/// Link 74.
pub struct Link74 {
    /// The next link.
    pub next: Option<Link75>,
}

/// Link 75.
pub struct Link75 {
    /// The next link.
    pub next: Option<Link76>,
}

/// Link 76.
pub struct Link76 {
    /// The next link.
    pub next: Option<Link77>,
}

/// Link 77.
pub struct Link77 {
    /// The next link.
    pub next: Option<Link78>,
}

/// Link 78.
pub struct Link78 {
    /// The next link.
    pub next: Option<Link79>,
}

/// Link 79.
pub struct Link79 {
    /// The next link.
    pub next: Option<Link80>,
}

/// Link 80.
pub struct Link80 {
    /// The next link.
    pub next: Option<Link81>,
}

/// Link 81.
pub struct Link81 {
    /// The next link.
    pub next: Option<Link82>,
}

/// Link 82.
pub struct Link82 {
    /// The next link.
    pub next: Option<Link83>,
}

/// Link 83.
pub struct Link83 {
    /// The next link.
    pub next: Option<Link84>,
}

/// Link 84.
pub struct Link84 {
    /// The next link.
    pub next: Option<Link85>,
}

/// Link 85.
pub struct Link85 {
    /// The next link.
    pub next: Option<Link86>,
}

/// Link 86.
pub struct Link86 {
    /// The next link.
    pub next: Option<Link87>,
}

/// Link 87.
pub struct Link87 {
    /// The next link.
    pub next: Option<Link88>,
}

/// Link 88.
pub struct Link88 {
    /// The next link.
    pub next: Option<Link89>,
}

/// Link 89.
pub struct Link89 {
    /// The next link.
    pub next: Option<Link90>,
}

/// Link 90.
pub struct Link90 {
    /// The next link.
    pub next: Option<Link91>,
}

/// Link 91.
pub struct Link91 {
    /// The next link.
    pub next: Option<Link92>,
}

/// Link 92.
pub struct Link92 {
    /// The next link.
    pub next: Option<Link93>,
}

/// Link 93.
pub struct Link93 {
    /// The next link.
    pub next: Option<Link94>,
}

/// Link 94.
pub struct Link94 {
    /// The next link.
    pub next: Option<Link95>,
}

/// Link 95.
pub struct Link95 {
    /// The next link.
    pub next: Option<Link96>,
}

/// Link 96.
pub struct Link96 {
    /// The next link.
    pub next: Option<Link97>,
}

/// Link 97.
pub struct Link97 {
    /// The next link.
    pub next: Option<Link98>,
}

/// Link 98.
pub struct Link98 {
    /// The next link.
    pub next: Option<Link99>,
}

/// Link 99.
pub struct Link99 {
    /// The next link.
    pub next: Option<Link100>,
}

/// Link 100.
pub struct Link100 {
    /// The next link.
    pub next: Option<Link101>,
}

/// Link 101.
pub struct Link101 {
    /// The next link.
    pub next: Option<Link102>,
}

/// Link 102.
pub struct Link102 {
    /// The next link.
    pub next: Option<Link103>,
}

/// Link 103.
pub struct Link103 {
    /// The next link.
    pub next: Option<Link104>,
}

/// Link 104.
pub struct Link104 {
    /// The end.
    pub end: bool,
}

/// Walk the chain.
pub fn walk(start: Link0) -> bool {
    start.next.is_some()
}
