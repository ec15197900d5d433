import Foundation
import Testing
import TestSupport

/// `avpipe record --screen/--region/--camera`: pictures from a real X server (a private Xvfb with
/// xclock ticking on it, the root painted with xsetroot) and sound from a real PulseAudio
/// microphone, checked from outside with ffprobe and ffmpeg's decode. Skipped where Xvfb or
/// PulseAudio is not installed. A camera cannot be tested here (no V4L2 device): it shares every
/// step after opening with the screen, and its opening errors are tested.
@Suite(.serialized, .needsDisplay, .needsSoundServer) struct RecordScreenTests {
    static let width = 640, height = 360

    /// A display with a black root and a ticking xclock (white, 200×200 at +50+50).
    struct Stage {
        let display: XvfbServer
        let clock: RunningProcess
        let folder = TemporaryDirectory()

        static func make() throws -> Stage {
            let display = try XvfbServer.started(width: RecordScreenTests.width, height: RecordScreenTests.height)
            _ = try Subprocess.run("xsetroot", ["-solid", "black"], environment: display.environment)
            let clock = try RunningProcess("/usr/bin/xclock", ["-update", "1", "-geometry", "200x200+50+50", "-bg", "white"], environment: display.environment)
            usleep(500_000)  // mapped and drawn
            return Stage(display: display, clock: clock)
        }
    }

    /// Mean luma (0–255) of each decoded picture of `path`'s video, with its time.
    static func lumas(_ path: String) throws -> [(time: Double, luma: Double)] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf",
                                                   "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        var pictures: [(Double, Double)] = [], time: Double?
        for line in result.stdoutText.split(separator: "\n") {
            if let range = line.range(of: "pts_time:") {
                time = Double(line[range.upperBound...].trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("lavfi.signalstats.YAVG="), let value = Double(line.dropFirst(23)), let time {
                pictures.append((time, value))
            }
        }
        return pictures
    }

    /// How many different pictures `path` holds (by the MD5 of each decoded picture).
    static func distinctPictures(_ path: String) throws -> Int {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"])
        let hashes = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
        return Set(hashes).count
    }

    /// The whole screen at 30 fps for 3 s: the screen's size, about 90 pictures, the clock ticking.
    @Test func aScreenRecordingHasTheScreensSizeAndItsPictures() throws {
        let stage = try Stage.make()
        let output = stage.folder.file("screen.mp4")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", "--no-audio", "--duration", "3", "--out", output],
                                        environment: stage.display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        #expect(probe.streams.count == 1 && probe.string("codec_name") == "h264")
        #expect(probe.int("width") == Self.width && probe.int("height") == Self.height)
        let pictures = try Self.lumas(output)
        // A loaded machine's encoder falls behind and the capture drops pictures, with a warning:
        // each picture of the 3 s is then in the file or counted as dropped (none dropped on an
        // idle machine is a speed claim, for scripts/bench).
        let dropped = result.stderrText.firstMatch(of: /([0-9]+) of [0-9]+ pictures were dropped/).flatMap { Int($0.1) } ?? 0
        #expect(abs(pictures.count + dropped - 90) <= 6, "\(pictures.count) pictures (and \(dropped) dropped) in 3 s at 30 fps")
        #expect((pictures.last?.time ?? 0) > 2.8 && (pictures.last?.time ?? 9) < 3.0, "the last picture at \(pictures.last?.time ?? -1) s")
        // The clock's white face on the black root: neither blank nor white all over.
        let mean = pictures.map(\.luma).reduce(0, +) / Double(max(pictures.count, 1))
        #expect(mean > 20 && mean < 200, "mean luma \(mean)")
        // Its hand moves every second: at least three different pictures.
        #expect(try Self.distinctPictures(output) >= 3)
    }

    /// A region has the region's size and what is there: inside the clock's white face it is
    /// bright, on the black root dark.
    @Test func aRegionRecordingHasTheRegionsSizeAndContent() throws {
        let stage = try Stage.make()
        for (region, bright) in [("120x80+90+110", true), ("120x80+400+200", false)] {
            let output = stage.folder.file("region-\(bright).mkv")
            let result = try Subprocess.run(Locations.avpipe, ["record", "--region", region, "--no-audio", "--duration", "1.5", "--out", output],
                                            environment: stage.display.environment)
            #expect(result.status == 0, "\(result.stderrText)")
            let probe = try Probe.run(output)
            #expect(probe.int("width") == 120 && probe.int("height") == 80, "\(region)")
            let pictures = try Self.lumas(output)
            let mean = pictures.map(\.luma).reduce(0, +) / Double(max(pictures.count, 1))
            // 45 in 1.5 s on a quiet machine (46 measured); under the suite's load x11grab misses
            // slots (a CI run kept 39). The rate's own check is aScreenRecordingHasTheScreensSizeAndItsPictures (90 ± 6 in 3 s).
            #expect(pictures.count >= 35 && (bright ? mean > 150 : mean < 30), "\(region): \(pictures.count) pictures, mean luma \(mean)")
        }
    }

    /// The screen and the microphone in one file: both tracks, as long as each other within a
    /// picture, the sound continuous.
    @Test func theScreenAndTheMicrophoneAreRecordedTogether() throws {
        let stage = try Stage.make()
        let sound = try PulseAudioServer.started(toneSource: 440)
        let output = stage.folder.file("both.mp4")
        let environment = stage.display.environment.merging(sound.environment) { $1 }
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", "--duration", "4", "--out", output], environment: environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        let kinds = probe.streams.compactMap { $0["codec_name"] as? String }.sorted()
        #expect(kinds == ["aac", "h264"], "\(kinds)")
        let video = probe.streams.firstIndex { $0["codec_name"] as? String == "h264" } ?? 0
        let audio = 1 - video
        let videoEnd = (probe.double("start_time", stream: video) ?? 0) + (probe.double("duration", stream: video) ?? 0)
        let audioEnd = (probe.double("start_time", stream: audio) ?? 0) + (probe.double("duration", stream: audio) ?? 0)
        #expect(abs(videoEnd - 4) <= 0.07 && abs(audioEnd - 4) <= 0.07 && abs(videoEnd - audioEnd) <= 1.0 / 30 + 0.03,
                "video ends at \(videoEnd) s, audio at \(audioEnd) s")
        let pictures = try Self.lumas(output)
        #expect(abs(pictures.count - 120) <= 8, "\(pictures.count) pictures in 4 s at 30 fps")
    }

    /// A white flash on the screen and a beep into the microphone, made at the same moment three
    /// times, land together in the file: the offset is what one clock buys (ffmpeg's x11grab +
    /// pulse recording puts them 90–180 ms apart). The beep takes a while to reach the microphone
    /// (PulseAudio's playback into the null sink): a second listener with 5 ms of latency (parec)
    /// times its arrival, and the file's offset is corrected by that. A flash shows in the first
    /// picture grabbed after it, so the corrected offset (flash − beep) lies between 0 and one
    /// picture period (33 ms), give or take the flash's own start (xsetroot) and the listener.
    @Test func aFlashAndABeepMadeTogetherLandTogether() throws {
        let stage = try Stage.make()
        let sound = try PulseAudioServer.started(microphone: true)
        let environment = stage.display.environment.merging(sound.environment) { $1 }
        let output = stage.folder.file("sync.mkv")
        let script = stage.folder.file("flash-beep.py")
        try Self.flashBeepScript.write(toFile: script, atomically: true, encoding: .utf8)
        // The flashes come 2.5, 3.5 and 4.5 s after the script starts, the recording 1 s after it.
        let flasher = try RunningProcess("/usr/bin/env", ["python3", script, PulseAudioServer.toneSinkName, PulseAudioServer.toneSourceName],
                                         environment: environment)
        usleep(1_000_000)
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--screen", "--duration", "6", "--out", output], environment: environment)
        let result = try #require(recorder.finish(within: 30))
        #expect(result.status == 0, "\(result.stderrText)")
        let maker = try #require(flasher.finish(within: 30))
        #expect(maker.status == 0, "\(maker.stderrText)")

        var flashes: [Double] = [], dark = true
        for picture in try Self.lumas(output) {
            if picture.luma > 128 && dark { flashes.append(picture.time) }
            dark = picture.luma <= 128
        }
        let decoded = try Subprocess.run("ffmpeg", ["-v", "error", "-i", output, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        let samples = decoded.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var beeps: [Double] = [], quietSince = 0
        for (index, sample) in samples.enumerated() {
            if abs(sample) > 0.1 {
                if index - quietSince > 4_800 { beeps.append(Double(index) / 48_000) }
                quietSince = index
            }
        }
        let delays = maker.stdoutText.split(separator: "\n").compactMap { $0.hasPrefix("heard after ") ? Double($0.dropFirst(12)) : nil }
        #expect(flashes.count == 3 && beeps.count == 3 && delays.count == 3, "flashes at \(flashes), beeps at \(beeps), heard after \(delays) ms")
        let offsets = zip(zip(flashes, beeps), delays).map { pair, delay in (pair.0 - pair.1) * 1000 + delay }
        print("flash − beep, corrected for the beep's way to the microphone: \(offsets.map { String(format: "%.1f", $0) }) ms (flashes at \(flashes) s, beeps at \(beeps) s, heard after \(delays) ms)")
        // A picture is never stamped before it was there (never early), and at least one flash
        // lands within a picture period of its beep. A grabbing thread the loaded machine starves
        // takes a flash late, correctly stamped late (148 ms was seen beside a sanitizer build):
        // such a one only has to stay far from the microphone's ~340 ms a missed latency
        // correction would add. The tight numbers are scripts/bench's (record-screen's sync).
        #expect(offsets.count == 3 && offsets.allSatisfy { $0 >= -15 && $0 <= 250 } && (offsets.min() ?? .infinity) <= 1000.0 / 30 + 15,
                "flash − beep: \(offsets) ms")
    }

    /// Three flashes of the root window (xsetroot) each with a 150 ms 1 kHz beep written into the
    /// microphone's sink at the same moment (pacat, fed silence in real time in between); a
    /// listener on the microphone prints how long after each flash its beep arrived.
    static let flashBeepScript = #"""
    import math, struct, subprocess, sys, threading, time
    sink, source = sys.argv[1], sys.argv[2]
    rate, chunk = 48000, 480
    heard = []
    listener = subprocess.Popen(["parec", "-d", source, "--latency-msec=5", "--format=float32le", "--rate=48000", "--channels=1", "--raw"],
                                stdout=subprocess.PIPE)
    def listen():
        quiet_since = time.monotonic()
        while True:
            block = listener.stdout.read(192)
            if not block:
                return
            now = time.monotonic()
            if max(abs(x) for x in struct.unpack("<%df" % (len(block) // 4), block)) > 0.1:
                if now - quiet_since > 0.1:
                    heard.append(now)
                quiet_since = now
    threading.Thread(target=listen, daemon=True).start()
    player = subprocess.Popen(["pacat", "--playback", "-d", sink, "--latency-msec=30", "--format=float32le",
                               "--rate=48000", "--channels=1", "--raw"], stdin=subprocess.PIPE)
    silence = struct.pack("<%df" % chunk, *([0.0] * chunk))
    beep = struct.pack("<%df" % (rate * 15 // 100), *[0.5 * math.sin(2 * math.pi * 1000 * i / rate) for i in range(rate * 15 // 100)])
    start = time.monotonic()
    written = 0.0
    flashes, made = [2.5, 3.5, 4.5], []
    while written < 5.5:
        if flashes and written >= flashes[0]:
            flashes.pop(0)
            made.append(time.monotonic())
            subprocess.Popen(["xsetroot", "-solid", "white"])
            player.stdin.write(beep)
            player.stdin.flush()
            written += 0.15
            time.sleep(max(0, start + written - time.monotonic()))
            subprocess.Popen(["xsetroot", "-solid", "black"])
            continue
        player.stdin.write(silence)
        player.stdin.flush()
        written += chunk / rate
        time.sleep(max(0, start + written - time.monotonic()))
    time.sleep(0.5)
    for moment in made:
        later = [h for h in heard if h >= moment]
        print("heard after", round((later[0] - moment) * 1000, 1) if later else "never", flush=True)
    player.stdin.close()
    listener.kill()
    """#

    /// The other outputs `record` writes with pictures: MPEG-TS and an HLS playlist (its segments
    /// decode as one stream of about 60 pictures for 2 s).
    @Test(arguments: ["ts", "m3u8"]) func screenRecordingsGoToTSAndHLS(format: String) throws {
        let stage = try Stage.make()
        let output = stage.folder.file("screen.\(format)")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", "--no-audio", "--duration", "2", "--out", output],
                                        environment: stage.display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let pictures = try Self.lumas(output)
        #expect(abs(pictures.count - 60) <= 4, "\(format): \(pictures.count) pictures in 2 s")
    }

    /// A screen recording is 4:2:0 H.264 High, which players and phones take; 4:4:4 (High 4:4:4
    /// Predictive, which many refuse) only when asked, and then with a notice saying so.
    @Test(arguments: [([], "yuv420p", "High"), (["--pixel-format", "yuv444p"], "yuv444p", "High 4:4:4 Predictive")])
    func aScreenRecordingIs420UnlessAsked(_ options: [String], _ layout: String, _ profile: String) throws {
        let stage = try Stage.make()
        let output = stage.folder.file("screen.mp4")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", "--no-audio", "--duration", "1", "--out", output] + options,
                                        environment: stage.display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        #expect(probe.string("pix_fmt") == layout && probe.string("profile") == profile, "\(probe.streams)")
        #expect(result.stderrText.contains("players") == !options.isEmpty, "\(result.stderrText)")
    }

    /// `kill -9` in the middle of an HLS recording leaves its playlist on disk, listing every
    /// segment finished before the kill, each there and playable (what ffmpeg's hls muxer leaves),
    /// not a hidden folder the next run deletes.
    @Test func aKilledHLSRecordingKeepsItsPlaylist() throws {
        let stage = try Stage.make()
        try FileManager.default.createDirectory(atPath: stage.folder.file("live"), withIntermediateDirectories: false)
        let playlist = stage.folder.file("live/index.m3u8")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--screen", "--no-audio", "--out", playlist, "--segment", "1"],
                                          environment: stage.display.environment)
        let listed = HLSTests.waitUntilListed(playlist, count: 2, by: recorder)
        try #require(listed >= 2 && recorder.isRunning, "the recording never got under way")
        kill(recorder.identifier, SIGKILL)
        _ = recorder.finish(within: 5)
        let entries = try HLSTests.playlistEntries(playlist)
        #expect(entries.map(\.uri) == (0..<entries.count).map { "index\($0).ts" }, "\(entries)")
        // Each segment by itself: the playlist has no end, so a player would wait for more.
        var pictures = 0
        for entry in entries {
            let segment = stage.folder.file("live/\(entry.uri)")
            let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", segment, "-f", "null", "-"])
            #expect(fileSize(segment) > 0 && decode.status == 0, "\(entry.uri): \(decode.stderrText)")
            pictures += try Self.lumas(segment).count
        }
        #expect(pictures >= 20, "\(pictures) pictures in \(entries.count) segments")
    }

    /// Pushed to nginx-rtmp as it is recorded: the server's recording holds the pictures and the sound.
    @Test(.needsNginx) func aScreenRecordingIsPushedOverRTMP() throws {
        let stage = try Stage.make()
        let sound = try PulseAudioServer.started(toneSource: 440)
        let server = try NginxServer.started()
        let environment = stage.display.environment.merging(sound.environment) { $1 }
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", "--duration", "3", "--out", server.rtmpURL("record", "screen")],
                                        environment: environment)
        #expect(result.status == 0, "\(result.stderrText)")
        server.stop()
        let recorded = server.recordings + "/screen.flv"
        let probe = try Probe.run(recorded)
        let kinds = probe.streams.compactMap { $0["codec_name"] as? String }.sorted()
        #expect(kinds == ["aac", "h264"], "\(kinds)")
        let pictures = try Self.lumas(recorded)
        #expect(abs(pictures.count - 90) <= 6, "\(pictures.count) pictures pushed in 3 s")
    }

    /// SIGTERM stops both devices and completes the file (exit 143): it holds what was captured.
    @Test func sigtermCompletesTheRecording() throws {
        let stage = try Stage.make()
        let sound = try PulseAudioServer.started(toneSource: 440)
        let output = stage.folder.file("stopped.mp4")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--screen", "--out", output],
                                          environment: stage.display.environment.merging(sound.environment) { $1 })
        // Stopped once about 3 s are on disk (a fresh sound server may take a second or two to
        // deliver its first audio, and the recording starts with it): 128 kb/s of sound, at least.
        let deadline = Date().addingTimeInterval(20)
        while fileSize(output) < 48_000 && Date() < deadline { usleep(20_000) }
        kill(recorder.identifier, SIGTERM)
        let result = try #require(recorder.finish(within: 15))
        #expect(result.status == 143, "\(result.status): \(result.stderrText)")
        let probe = try Probe.run(output)
        #expect(probe.streams.count == 2 && (probe.duration ?? 0) >= 2, "duration \(probe.duration ?? -1) s")
        // Decoded whole. (The pictures keep their capture times: on the file's own clock, not
        // ffmpeg's default 1/30 s encoder clock, where two pictures closer than that collide.)
        let check = try Subprocess.run("ffmpeg", ["-v", "error", "-i", output, "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(check.status == 0 && check.stderrText.isEmpty, "\(check.stderrText)")
    }

    /// Killed outright mid-recording: the MP4 plays up to its last fragment (a second at most is lost).
    @Test func aKilledScreenRecordingKeepsItsFragments() throws {
        let stage = try Stage.make()
        let output = stage.folder.file("killed.mp4")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--screen", "--no-audio", "--out", output], environment: stage.display.environment)
        let deadline = Date().addingTimeInterval(15)
        while fileSize(output) == 0 && Date() < deadline { usleep(20_000) }
        usleep(3_500_000)
        kill(recorder.identifier, SIGKILL)
        _ = recorder.finish(within: 10)
        let pictures = try Self.lumas(output)
        #expect(pictures.count >= 60, "\(pictures.count) pictures kept of ~3.5 s at 30 fps")
    }

    /// A device that is not there is exit 69 naming it, and nothing is written.
    @Test(arguments: [
        (["--camera", "/dev/video9"], "/dev/video9"),
        (["--screen", ":98"], ":98"),
        (["--region", "400x300+500+200"], "outside"),
    ])
    func aMissingDeviceIsExit69NamingIt(arguments: [String], named: String) throws {
        let stage = try Stage.make()
        let output = stage.folder.file("none.mp4")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--no-audio", "--duration", "1", "--out", output] + arguments,
                                        environment: stage.display.environment)
        #expect(result.status == 69 && result.stderrText.contains(named), "\(result.status): \(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// --list-devices names the screen beside the microphones, as --screen takes it.
    @Test func listDevicesNamesTheScreen() throws {
        let stage = try Stage.make()
        let sound = try PulseAudioServer.started(toneSource: 440)
        let result = try Subprocess.run(Locations.avpipe, ["record", "--list-devices"],
                                        environment: stage.display.environment.merging(sound.environment) { $1 })
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains(PulseAudioServer.toneSourceName), "\(lines)")
        #expect(lines.first { $0.hasPrefix("screen ") } == "screen \(stage.display.display) (--screen \(stage.display.display))", "\(lines)")
    }

    /// Picture options that cannot work are usage errors (64) before any device is opened.
    @Test(arguments: [
        ["--screen", "--out", "x.aac"],
        ["--region", "100x100+x+1", "--out", "x.mp4"],
        ["--screen", "--camera", "/dev/video0", "--out", "x.mp4"],
        ["--crf", "20", "--out", "x.m4a"],
        ["--screen", "--video-codec", "copy", "--out", "x.mp4"],
        ["--screen", "--fps", "1000", "--out", "x.mp4"],
        ["--video-size", "640x480", "--screen", "--out", "x.mp4"],
    ])
    func impossiblePictureOptionsAreUsageErrors(arguments: [String]) throws {
        let folder = TemporaryDirectory()
        let result = try Subprocess.run(Locations.avpipe, ["record"] + arguments.map { $0.hasPrefix("x.") ? folder.file($0) : $0 })
        #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
