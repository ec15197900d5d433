// transcode IN OUT — what `avpipe encode --in IN --out OUT` does: the codecs OUT's container calls
// for, every track with its language, rotation, title, chapters and start time, with progress.
import AVPipeline
import Foundation

guard CommandLine.arguments.count == 3 else { print("usage: transcode IN OUT"); exit(2) }
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let session = try TranscodeSession(input: CommandLine.arguments[1], output: CommandLine.arguments[2])
let summary = try await session.run { event in
    switch event {
    case .progress(let progress):
        // The fraction is known when IN's duration is; the speed once a moment has passed.
        let percent = progress.fraction.map { " \(Int($0 * 100)) %" } ?? ""
        let speed = progress.speed.map { String(format: " %.1fx", $0) } ?? ""
        print("\(progress.time.seconds) s\(percent)\(speed)")
    case .notice(let text), .warning(let text):
        print(text)
    }
}
print("wrote \(summary.output)\(summary.stopped ? " (stopped early)" : "")")
