import ArgumentParser
import AVPipeline

/// A point or span of time typed as seconds (`12.5`) or as a clock (`1:02.5`, `01:02:03.250`).
struct TimeArgument: ExpressibleByArgument, Sendable {
    /// In microseconds.
    let time: MediaTime

    init?(argument: String) {
        let fields = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), let last = Double(fields.last!), last >= 0, last.isFinite else { return nil }
        var seconds = last
        for (power, field) in fields.dropLast().reversed().enumerated() {
            guard let value = Int(field), value >= 0 else { return nil }
            if power == 0 && last >= 60 { return nil }  // 1:75 is not a clock time
            seconds += Double(value) * (power == 0 ? 60 : 3600)
        }
        guard seconds <= 1e9 else { return nil }
        time = MediaTime(seconds: seconds)
    }
}
