// record-screen SECONDS OUT — the screen of $DISPLAY for SECONDS, no sound, as H.264 (4:2:0, 30
// pictures a second) in an MP4 written in fragments, so a killed run keeps what it recorded.
import AVPipeline
import AVPipelineDevices
import Foundation

guard CommandLine.arguments.count == 3, let seconds = Int64(CommandLine.arguments[1]) else {
    print("usage: record-screen SECONDS OUT"); exit(2)
}
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
// The capture ends by itself after `duration`; `screen.control.stop()`, from any thread, ends it sooner.
let screen = try VideoCapture(options: .init(device: .screen(), frameRate: Rational(30, 1), duration: .seconds(seconds)))
let muxer = try Muxer(path: CommandLine.arguments[2], options: .init(fragmented: true, liveInput: true))
// What `avpipe record` uses: a fast preset that keeps up with the screen, 4:2:0 for every
// player, and a keyframe at every fragment start.
let encoding = VideoEncoderOptions(preset: "veryfast", tune: "zerolatency", pixelFormat: .yuv420p, keyframeTimeInterval: .seconds(1))
let encoder = try screen.encodeVideo(muxer.videoEncoderOptions(encoding))
// Encoding in a task of its own, as pictures arrive, so that writing never holds the screen up.
try muxer.addVideo(encoder.prefetched(capacity: 256, live: true), label: screen.deviceName)
try await muxer.run()
let statistics = screen.control.statistics
print("recorded \(statistics.delivered) pictures of \(screen.deviceName) to \(CommandLine.arguments[2])")
if statistics.dropped > 0 { print("warning: \(statistics.dropped) pictures dropped: encoding fell behind") }
