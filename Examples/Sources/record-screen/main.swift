// record-screen SECONDS OUT — the screen of $DISPLAY for SECONDS, no sound, as H.264 (4:2:0, 30
// pictures a second) in an MP4 written in fragments, so a killed run keeps what it recorded.
import AVPipeline
import AVPipelineDevices
import Foundation

guard CommandLine.arguments.count == 3, let seconds = Int64(CommandLine.arguments[1]) else {
    print("usage: record-screen SECONDS OUT"); exit(2)
}
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
// The session applies what `avpipe record` does: x264's live settings, 4:2:0, a keyframe at every
// fragment start. It ends by itself after `duration`; `session.stop()`, from anywhere, ends it sooner.
let screen = VideoCapture.Options(device: .screen(), frameRate: Rational(30, 1))
let session = try RecordingSession(output: CommandLine.arguments[2],
                                   options: .init(microphone: nil, pictures: screen, duration: .seconds(seconds)))
let summary = try await session.run { event in
    if case .warning(let text) = event { print("warning: \(text)") }
}
let pictures = summary.pictures?.delivered ?? 0
print("recorded \(pictures) pictures of the screen to \(summary.output)")
