/// The Muxer's whole interleaving buffer: at most one waiting packet (the "head") per input, and
/// a way to take the one with the earliest decode time.
///
/// The Muxer refills an input only after that input's head was taken, so the buffer never holds
/// more than one packet per input and no input can run ahead of the others: the bound is structural,
/// and `highWaterMark` lets a test prove it.
struct InterleavingQueue<Element> {
    private var heads: [(time: MediaTime, element: Element)?]
    private(set) var count = 0
    /// The most packets ever waiting at once.
    private(set) var highWaterMark = 0

    init(inputCount: Int) {
        heads = Array(repeating: nil, count: inputCount)
    }

    var inputCount: Int { heads.count }

    /// Parks the next packet of `input`, which must not have one waiting already.
    mutating func put(_ element: Element, at time: MediaTime, input: Int) {
        precondition(heads[input] == nil, "input \(input) already has a packet waiting")
        heads[input] = (time, element)
        count += 1
        highWaterMark = max(highWaterMark, count)
    }

    /// Takes the waiting packet with the earliest time; ties go to the lower input index, so the
    /// order is deterministic.
    mutating func popEarliest() -> (input: Int, time: MediaTime, element: Element)? {
        var best: (index: Int, time: MediaTime)?
        for index in heads.indices {
            guard let time = heads[index]?.time else { continue }
            if let current = best, !(time < current.time) { continue }
            best = (index, time)
        }
        // Moved out, not copied: for a packet owner a copy is a retain and a release.
        guard let best, let head = heads[best.index].take() else { return nil }
        count -= 1
        return (best.index, best.time, head.element)
    }
}
