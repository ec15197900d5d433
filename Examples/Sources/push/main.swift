// push IN URL SECONDS — IN (H.264 + AAC) to an RTMP server as a live stream, in real time, stopped
// after SECONDS (or at IN's end, if sooner) with the stream closed properly.
import AVPipeline
import Foundation

guard CommandLine.arguments.count == 4, let seconds = Int(CommandLine.arguments[3]) else {
    print("usage: push IN URL SECONDS"); exit(2)
}
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let demuxer = try Demuxer(path: CommandLine.arguments[1])
// A live URL (rtmp, srt) is sent at the media's own pace, as a live source would send it.
let muxer = try Muxer(url: CommandLine.arguments[2])
try muxer.addVideo(demuxer.videoTrack())
if demuxer.info.hasAudio { try muxer.addAudio(demuxer.audioTrack()) }

let control = muxer.control
let timer = Task { try await Task.sleep(for: .seconds(seconds)); control.stop() }
// A stop is a normal end: the stream is closed properly and `run` returns what was sent.
let summary = try await muxer.run()
timer.cancel()
print("pushed \(summary.duration.map { "\($0.seconds) s" } ?? "?") of \(CommandLine.arguments[1])")
