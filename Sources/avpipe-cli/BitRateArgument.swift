import ArgumentParser

/// A bit rate typed as bits per second (`96000`) or with a k/M suffix (`96k`, `1.5M`).
struct BitRateArgument: ExpressibleByArgument, Sendable {
    let bitsPerSecond: Int

    init?(argument: String) {
        var text = argument
        var scale = 1.0
        switch text.last {
        case "k", "K": scale = 1_000
        case "m", "M": scale = 1_000_000
        default: break
        }
        if scale != 1 { text.removeLast() }
        guard let value = Double(text), value > 0, value.isFinite, value * scale <= 100_000_000 else { return nil }
        bitsPerSecond = Int((value * scale).rounded())
    }
}
