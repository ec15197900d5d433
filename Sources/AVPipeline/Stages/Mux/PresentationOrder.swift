/// Works out presentation order from decode order and picture order counts, the way a decoder's
/// output ("bumping") process does: keep up to `depth` pictures waiting, and whenever one more
/// arrives, the waiting picture with the lowest POC is the next to be shown. A picture that starts a
/// new POC period (an IDR) first flushes every waiting picture, since all of them are shown before it.
///
/// Correct whenever `depth` is at least the stream's reorder depth; H.264/H.265 never reorder more
/// than 16 frames, so 16 is always safe.
struct PresentationOrder {
    let depth: Int
    private var waiting: [(index: Int64, poc: Int32)] = []
    private var nextPresentation: Int64 = 0

    init(depth: Int = 16) { self.depth = depth }

    /// Adds picture `index` (decode order); returns the pictures whose presentation index is now known.
    mutating func add(index: Int64, poc: Int32, startsPeriod: Bool) -> [(index: Int64, presentation: Int64)] {
        var settled = startsPeriod ? drain() : []
        waiting.append((index, poc))
        while waiting.count > depth { settled.append(popLowest()) }
        return settled
    }

    /// At end of stream: everything still waiting, in presentation order.
    mutating func drain() -> [(index: Int64, presentation: Int64)] {
        var settled: [(index: Int64, presentation: Int64)] = []
        while !waiting.isEmpty { settled.append(popLowest()) }
        return settled
    }

    private mutating func popLowest() -> (index: Int64, presentation: Int64) {
        var best = 0
        for i in waiting.indices.dropFirst() where waiting[i].poc < waiting[best].poc { best = i }
        let picture = waiting.remove(at: best)
        defer { nextPresentation += 1 }
        return (picture.index, nextPresentation)
    }
}
