// push IN URL SECONDS — IN (H.264 + AAC) to an RTMP server as a live stream, in real time, stopped
// after SECONDS (or at IN's end, if sooner) with the stream closed properly.
import AVPipeline
import Foundation

guard CommandLine.arguments.count == 4, let seconds = Int(CommandLine.arguments[3]) else {
    print("usage: push IN URL SECONDS"); exit(2)
}
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let demuxer = try Demuxer(path: CommandLine.arguments[1])
// `realtime`: sent at the media's own pace, as a live source would send it, not in one burst.
let muxer = try Muxer(url: CommandLine.arguments[2], options: .init(realtime: true))
try muxer.addVideo(demuxer.videoTrack())
if demuxer.info.hasAudio { try muxer.addAudio(demuxer.audioTrack()) }

let pushing = Task { try await muxer.run() }
try await Task.sleep(for: .seconds(seconds))
// Cancelling a live push ends the stream cleanly (the server gets its end) and then reports
// `.cancelled`: for this program, a normal end.
pushing.cancel()
do {
    let summary = try await pushing.value
    print("pushed all of \(CommandLine.arguments[1]) (\(summary.duration.map { "\($0.seconds) s" } ?? "?"))")
} catch AVPipelineError.cancelled {
    print("stopped after \(seconds) s")
}
