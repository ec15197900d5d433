// play IN — plays 2 s of IN, jumps to 5 s, plays 1 s more, stops, and prints what it showed.
import AVPipeline
import AVPipelineDevices
import Foundation

guard CommandLine.arguments.count == 2 else { print("usage: play IN"); exit(2) }
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let player = try Player(path: CommandLine.arguments[1])
for notice in player.notices { print("notice: \(notice)") }  // e.g. no display: sound only

player.play()  // starts in a task of its own and returns; steer it from any task
try await Task.sleep(for: .seconds(2))
try player.seek(to: .seconds(5))
try await Task.sleep(for: .seconds(1))
player.stop()
let statistics = try await player.waitUntilFinished()

// The line `avpipe play --stats` prints.
var parts: [String] = []
if player.showsVideo {
    parts.append("pictures shown \(statistics.picturesShown), dropped \(statistics.picturesDropped), late \(statistics.picturesLate)")
}
if player.playsAudio { parts.append("audio underruns \(statistics.audioUnderruns)") }
print(parts.joined(separator: "; "))
