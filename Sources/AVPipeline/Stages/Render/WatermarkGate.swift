/// When a producer may refill a bounded buffer: it fills up to `high`, then rests until the consumer
/// has drained the buffer down to `low` (hysteresis, so it works in batches instead of trickling a
/// buffer at a time). A pure value, tested on its own.
struct WatermarkGate: Sendable, Equatable {
    let low: Int
    let high: Int
    private(set) var resting = false

    init(low: Int, high: Int) {
        precondition(0 <= low && low < high, "watermarks need 0 ≤ low < high")
        self.low = low
        self.high = high
    }

    /// Whether to produce more, given the current fill level; updates the resting state.
    mutating func shouldProduce(fill: Int) -> Bool {
        if fill >= high {
            resting = true
        } else if resting && fill <= low {
            resting = false
        }
        return !resting
    }
}
