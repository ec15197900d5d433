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
        var best: Int?
        for index in heads.indices {
            guard let head = heads[index] else { continue }
            if let current = best, let currentHead = heads[current], !(head.time < currentHead.time) { continue }
            best = index
        }
        guard let best, let head = heads[best] else { return nil }
        heads[best] = nil
        count -= 1
        return (best, head.time, head.element)
    }
}
