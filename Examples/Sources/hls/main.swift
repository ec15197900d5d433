// hls IN FOLDER — the picture of IN scaled to 320 pixels wide and encoded to H.264, its sound
// copied as it is, as an HLS stream in FOLDER (index.m3u8 and its segments) cut every 2 seconds.
import AVPipeline
import Foundation

guard CommandLine.arguments.count == 3 else { print("usage: hls IN FOLDER"); exit(2) }
FFmpegLog.setLevel(.quiet)  // as `avpipe` does: failures arrive as typed errors, not FFmpeg's log
let demuxer = try Demuxer(path: CommandLine.arguments[1])
var options = Muxer.Options()
options.hls = HLSOptions(segmentDuration: .seconds(2))
let muxer = try Muxer(path: CommandLine.arguments[2] + "/index.m3u8", options: options)
// Only the width is given: the height follows the display aspect (an anamorphic picture keeps
// its shape). The muxer adds what HLS asks of the encoder: a keyframe at every
// segment start, so each segment can be played on its own.
let encoding = muxer.videoEncoderOptions(VideoEncoderOptions(width: 320))
try muxer.addVideo(demuxer.videoTrack().decodeVideo().encodeVideo(encoding))
if demuxer.info.hasAudio { try muxer.addAudio(demuxer.audioTrack()) }
let summary = try await muxer.run()
print("wrote \(summary.path) (\(summary.duration.map { "\($0.seconds) s" } ?? "?"))")
