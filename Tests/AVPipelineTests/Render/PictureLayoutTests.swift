@testable import AVPipeline
import Testing

@Suite struct PictureLayoutTests {
    static func format(_ width: Int, _ height: Int, sar: Rational? = nil, rotation: Int = 0) -> VideoFormat {
        VideoFormat(pixelFormat: .yuv420p, width: width, height: height, sampleAspectRatio: sar, colorRange: nil, colorSpace: nil,
                    colorPrimaries: nil, colorTransfer: nil, rotation: rotation, isMirrored: false, timeBase: Rational(1, 30), frameRate: nil)
    }

    @Test func aWidePictureInATallWindowIsLetterboxed() {
        let layout = PictureLayout(format: Self.format(1280, 720), windowWidth: 640, windowHeight: 640)
        #expect(layout.box == .init(x: 0, y: 140, width: 640, height: 360))
        #expect(layout.drawBox == layout.box)
    }

    @Test func aTallWindowForANarrowPictureIsPillarboxed() {
        let layout = PictureLayout(format: Self.format(640, 480), windowWidth: 1000, windowHeight: 480)
        #expect(layout.box == .init(x: 180, y: 0, width: 640, height: 480))
    }

    /// Anamorphic DVD video: 720×576 stored, 16:15 pixels → 768×576 shown.
    @Test func thePixelAspectRatioStretchesTheWidth() {
        #expect(PictureLayout.displaySize(of: Self.format(720, 576, sar: Rational(16, 15))) == (768, 576))
        let layout = PictureLayout(format: Self.format(720, 576, sar: Rational(16, 15)), windowWidth: 768, windowHeight: 576)
        #expect(layout.box == .init(x: 0, y: 0, width: 768, height: 576))
    }

    /// A portrait phone clip (stored 1920×1080, turned 90°) fills a 1080×1920 window; SDL draws
    /// the stored picture into a box of swapped sides that turns onto it.
    @Test func aQuarterTurnSwapsTheSides() {
        let format = Self.format(1920, 1080, rotation: 90)
        #expect(PictureLayout.displaySize(of: format) == (1080, 1920))
        let layout = PictureLayout(format: format, windowWidth: 540, windowHeight: 960)
        #expect(layout.box == .init(x: 0, y: 0, width: 540, height: 960))
        #expect(layout.drawBox == .init(x: -210, y: 210, width: 960, height: 540))
    }

    /// The track's order is turn, then mirror; SDL mirrors first, so the turn goes the other way.
    @Test func mirroringReversesTheTurnForSDL() {
        #expect(PictureLayout.sdlAngle(rotation: 90, mirrored: false) == 90)
        #expect(PictureLayout.sdlAngle(rotation: 90, mirrored: true) == 270)
        #expect(PictureLayout.sdlAngle(rotation: 0, mirrored: true) == 0)
        #expect(PictureLayout.sdlAngle(rotation: 180, mirrored: true) == 180)
    }

    /// Only a picture drawn unscaled, upright or upside down, skips filtering.
    @Test func onlyAnUnscaledUprightDrawIsPixelForPixel() {
        let hd = Self.format(1280, 720)
        #expect(PictureLayout(format: hd, windowWidth: 1280, windowHeight: 720).isPixelForPixel(format: hd))
        #expect(PictureLayout(format: hd, windowWidth: 1280, windowHeight: 1000).isPixelForPixel(format: hd))  // letterboxed
        #expect(!PictureLayout(format: hd, windowWidth: 1281, windowHeight: 721).isPixelForPixel(format: hd))
        #expect(!PictureLayout(format: hd, windowWidth: 640, windowHeight: 360).isPixelForPixel(format: hd))
        let upsideDown = Self.format(1280, 720, rotation: 180)
        #expect(PictureLayout(format: upsideDown, windowWidth: 1280, windowHeight: 720).isPixelForPixel(format: upsideDown))
        let turned = Self.format(1280, 720, rotation: 90)
        #expect(!PictureLayout(format: turned, windowWidth: 720, windowHeight: 1280).isPixelForPixel(format: turned))
        let anamorphic = Self.format(720, 576, sar: Rational(16, 15))
        #expect(!PictureLayout(format: anamorphic, windowWidth: 768, windowHeight: 576).isPixelForPixel(format: anamorphic))
    }
}
