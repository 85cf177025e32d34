import Testing
@testable import Core

/// The plane's rules, each case a picture before, a gesture, and the ops or the refusal.
/// Pictures list rectangles bottom first; a last column names who selected it.
@Suite struct PlaneRulesTests {
    // Two overlapping rectangles: `bot` spans 100...250 x 100...220, `top` 200...350 x 150...270.
    static let overlapping = """
        bot-bot-bot 100 100 150 120 #ff0000 5
        top-top-top 200 150 150 120 #0000ff 7
        """

    // MARK: Options and document

    @Test func optionsMustBeAPositiveBoundedSize() {
        for (w, h) in [(0.0, 768.0), (-1, 768), (1024, .infinity), (.nan, 768), (1024, 100_001)] {
            #expect(throws: GameError.self) { try Plane(options: PlaneOptions(width: w, height: h, seed: 1)) }
        }
        do {
            _ = try Plane(options: PlaneOptions(width: 0, height: 1, seed: 1))
        } catch {
            #expect(error.code == .badRequest && error.rule == "plane-size")
        }
        #expect((try? Plane(options: PlaneOptions(width: 100_000, height: 0.5, seed: 1))) != nil)
    }

    @Test func publicStateIsTheProtocolDocument() throws {
        let plane = try planePicture("""
            a1b-2c3-d4e 10.5 20 150 120 #ff8000 7 p1
            zzz-999-000 0 0 1 2 #000001 1
            """)
        #expect(plane.publicState.encoded == #"{"width":1024,"height":768,"rectangles":{"#
            + #""a1b-2c3-d4e":{"x":10.5,"y":20,"width":150,"height":120,"r":255,"g":128,"b":0,"alpha":7},"#
            + #""zzz-999-000":{"x":0,"y":0,"width":1,"height":2,"r":0,"g":0,"b":1,"alpha":1}},"#
            + #""order":["a1b-2c3-d4e","zzz-999-000"],"selections":{"p1":"a1b-2c3-d4e"}}"#)
        let empty = try Plane(options: PlaneOptions(seed: 9))
        #expect(empty.publicState.encoded == #"{"width":1024,"height":768,"rectangles":{},"order":[],"selections":{}}"#)
    }

    @Test func rectangleIDsHaveTheProtocolForm() {
        #expect(RectangleID("a1b-2c3-d4e") != nil)
        for bad in ["a1b-2c3-d4", "A1b-2c3-d4e", "a1b_2c3-d4e", "a1b-2c3-d4e-", "a1b2c3d4e00", ""] {
            #expect(RectangleID(bad) == nil, "\(bad)")
        }
        var rng = SplitMix64(seed: 42)
        let factory = RectangleFactory(planeWidth: 1024, planeHeight: 768)
        for _ in 0..<1000 {
            let id = factory.makeID(using: &rng)
            #expect(RectangleID(id.rawValue) == id)
        }
    }

    // MARK: Tap

    @Test func tapSelectsTheTopmostRectangleWhereTheyOverlap() throws {
        var plane = try planePicture(Self.overlapping)
        let ops = plane.expectAccepted(.tap(point(220, 200)))
        #expect(ops == #"[{"op":"add","path":"/selections/p1","value":"top-top-top"}]"#)
        #expect(plane.selection(of: "p1") == rectID("top-top-top"))
    }

    @Test func tapSelectsTheLowerRectangleWhereItShows() throws {
        var plane = try planePicture(Self.overlapping)
        #expect(plane.expectAccepted(.tap(point(120, 110))) == #"[{"op":"add","path":"/selections/p1","value":"bot-bot-bot"}]"#)
    }

    @Test func edgesAreInside() throws {
        var plane = try planePicture("edg-edg-edg 100 100 150 120 #ffffff 3")
        for corner in [point(100, 100), point(250, 220), point(100, 220), point(250, 100)] {
            plane.expectAccepted(.tap(corner), by: "p-\(corner.x)-\(corner.y)")
        }
        for outside in [point(99.999, 150), point(250.001, 150), point(150, 220.001), point(150, 99.999)] {
            plane.expectRefused(.tap(outside), by: "fresh", .illegalMove, rule: "nothing-to-deselect")
        }
    }

    @Test func tapOnAnotherRectangleReplacesTheSelection() throws {
        var plane = try planePicture("""
            bot-bot-bot 100 100 150 120 #ff0000 5 p1
            top-top-top 200 150 150 120 #0000ff 7
            """)
        #expect(plane.expectAccepted(.tap(point(300, 250))) == #"[{"op":"replace","path":"/selections/p1","value":"top-top-top"}]"#)
    }

    @Test func tapOnTheSelectedRectangleIsIllegal() throws {
        var plane = try planePicture("""
            bot-bot-bot 100 100 150 120 #ff0000 5
            top-top-top 200 150 150 120 #0000ff 7 p1
            """)
        plane.expectRefused(.tap(point(220, 200)), .illegalMove, rule: "already-selected")
    }

    @Test func tapOnEmptySpaceClearsOnlyTheSendersSelection() throws {
        var plane = try planePicture("bot-bot-bot 100 100 150 120 #ff0000 5 p1,p2")
        #expect(plane.expectAccepted(.tap(point(900, 700))) == #"[{"op":"remove","path":"/selections/p1"}]"#)
        #expect(plane.selectedPlayers == ["p2"])
        plane.expectRefused(.tap(point(900, 700)), .illegalMove, rule: "nothing-to-deselect")
        // Outside the plane is empty space too.
        #expect(plane.expectAccepted(.tap(point(-5, 5000)), by: "p2") == #"[{"op":"remove","path":"/selections/p2"}]"#)
    }

    @Test func selectionsArePerPlayer() throws {
        var plane = try planePicture(Self.overlapping)
        plane.expectAccepted(.tap(point(120, 110)), by: "p1")
        plane.expectAccepted(.tap(point(300, 250)), by: "p2")
        plane.expectAccepted(.tap(point(120, 110)), by: "p2")
        #expect(plane.selection(of: "p1") == rectID("bot-bot-bot"))
        #expect(plane.selection(of: "p2") == rectID("bot-bot-bot"))
        #expect(plane.players(selecting: rectID("bot-bot-bot")) == ["p1", "p2"])
    }

    @Test func playerIDsAreEscapedInPaths() throws {
        var plane = try planePicture(Self.overlapping)
        #expect(plane.expectAccepted(.tap(point(120, 110)), by: "a/b~c")
            == #"[{"op":"add","path":"/selections/a~1b~0c","value":"bot-bot-bot"}]"#)
    }

    @Test func nonFinitePointsAreBadRequests() throws {
        var plane = try planePicture(Self.overlapping)
        plane.expectRefused(.tap(point(.nan, 1)), .badRequest, rule: "not-finite")
        plane.expectRefused(.doubleTap(point(1, .infinity)), .badRequest, rule: "not-finite")
        plane.expectRefused(.drag(from: point(120, 110), to: point(-.infinity, 0)), .badRequest, rule: "not-finite")
    }

    // MARK: Double-tap

    @Test func doubleTapAddsARandomRectangleCentredOnThePointAndSelectsIt() throws {
        var plane = try planePicture(Self.overlapping)
        let ops = plane.expectAccepted(.doubleTap(point(500, 400)))
        let new = try #require(plane.rectangles.last)
        #expect(plane.rectangles.count == 3)
        #expect((new.x, new.y, new.width, new.height) == (425, 340, 150, 120))
        #expect(new.color.isValid && Rectangle.alphaRange.contains(new.alpha))
        #expect(plane.selection(of: "p1") == new.id)
        #expect(ops == "[" + #"{"op":"add","path":"/rectangles/\#(new.id)","value":\#(new.json.encoded)},"#
            + #"{"op":"add","path":"/order/-","value":"\#(new.id)"},"#
            + #"{"op":"add","path":"/selections/p1","value":"\#(new.id)"}]"#)
    }

    @Test func doubleTapNearAnEdgeMovesTheRectangleInside() throws {
        var plane = try planePicture("")
        plane.expectAccepted(.doubleTap(point(10, 10)))
        #expect(plane.rectangles.last.map { ($0.x, $0.y) } ?? (-1, -1) == (0, 0))
        plane.expectAccepted(.doubleTap(point(1024, 768)))
        #expect(plane.rectangles.last.map { ($0.x, $0.y) } ?? (-1, -1) == (874, 648))
        plane.expectAccepted(.doubleTap(point(-1e300, 1e300)))
        #expect(plane.rectangles.last.map { ($0.x, $0.y) } ?? (-1, -1) == (0, 648))
    }

    @Test func doubleTapOnTopOfASelectionReplacesIt() throws {
        var plane = try planePicture("bot-bot-bot 100 100 150 120 #ff0000 5 p1")
        let ops = plane.expectAccepted(.doubleTap(point(175, 160)))
        #expect(ops.hasSuffix(#"{"op":"replace","path":"/selections/p1","value":"\#(plane.rectangles[1].id)"}]"#))
        // The new one is on top, so a tap there now finds it.
        #expect(plane.topmostIndex(at: point(175, 160)) == 1)
    }

    @Test func aSmallPlaneShrinksTheDefaultRectangle() throws {
        var plane = try planePicture("", width: 100, height: 50.5)
        plane.expectAccepted(.doubleTap(point(50, 25)))
        plane.expectAccepted(.add(RectangleSpec()))
        for r in plane.rectangles {
            #expect((r.x, r.y, r.width, r.height) == (0, 0, 100, 50.5))
        }
    }

    @Test func theSameSeedAndCommandsGiveTheSamePlane() throws {
        let commands: [PlaneCommand] = [.doubleTap(point(300, 300)), .add(RectangleSpec()), .color(nil), .add(RectangleSpec(x: 5)),
                                        .drag(from: point(10, 300), to: point(40, 310)), .tap(point(1, 1)), .reset, .add(RectangleSpec())]
        func replay(seed: UInt64) throws -> Plane {
            var plane = try Plane(options: PlaneOptions(seed: seed))
            for command in commands { _ = plane.apply(command, context: MoveContext(player: "p1", time: 0)) }
            return plane
        }
        #expect(try replay(seed: 7) == replay(seed: 7))
        #expect(try replay(seed: 7).publicState.encoded == replay(seed: 7).publicState.encoded)
        #expect(try replay(seed: 7).publicState != replay(seed: 8).publicState)
    }

    @Test func aRefusedCommandLeavesTheGeneratorAlone() throws {
        var refusedFirst = try planePicture("")
        refusedFirst.expectRefused(.add(RectangleSpec(alpha: 11)), .badRequest, rule: "alpha-range")
        refusedFirst.expectRefused(.color(nil), .illegalMove, rule: "no-selection")
        var fresh = try planePicture("")
        refusedFirst.expectAccepted(.add(RectangleSpec()))
        fresh.expectAccepted(.add(RectangleSpec()))
        #expect(refusedFirst == fresh)
    }

    @Test func aCollidingIDIsRerolled() throws {
        // Find the id the generator of seed 5 makes first, and put it on the plane already.
        var rng = SplitMix64(seed: 5)
        let factory = RectangleFactory(planeWidth: 1024, planeHeight: 768)
        let first = factory.makeID(using: &rng)
        let second = factory.makeID(using: &rng)
        var plane = try planePicture("\(first) 0 0 10 10 #000000 1", seed: 5)
        plane.expectAccepted(.doubleTap(point(500, 500)))
        #expect(plane.rectangles.map(\.id) == [first, second])
    }

    // MARK: Drag

    @Test func dragMovesTheTopmostRectangleByTheDifferenceAndSelectsIt() throws {
        var plane = try planePicture(Self.overlapping)
        let ops = plane.expectAccepted(.drag(from: point(220, 200), to: point(230.5, 190)))
        #expect(ops == "["
            + #"{"op":"replace","path":"/rectangles/top-top-top/x","value":210.5},"#
            + #"{"op":"replace","path":"/rectangles/top-top-top/y","value":140},"#
            + #"{"op":"add","path":"/selections/p1","value":"top-top-top"}]"#)
        #expect(plane.publicState == (try planePicture("""
            bot-bot-bot 100 100 150 120 #ff0000 5
            top-top-top 210.5 140 150 120 #0000ff 7 p1
            """)).publicState)
    }

    @Test func dragKeepsTheRectangleInsideThePlane() throws {
        var plane = try planePicture("box-box-box 100 100 150 120 #ff0000 5 p1")
        #expect(plane.expectAccepted(.drag(from: point(110, 110), to: point(5000, 110)))
            == #"[{"op":"replace","path":"/rectangles/box-box-box/x","value":874}]"#)
        #expect(plane.expectAccepted(.drag(from: point(900, 110), to: point(900, -1e308)))
            == #"[{"op":"replace","path":"/rectangles/box-box-box/y","value":0}]"#)
        // Already against the right wall and selected: pushing further changes nothing.
        plane.expectRefused(.drag(from: point(900, 10), to: point(950, 10)), .illegalMove, rule: "nothing-moved")
        // A huge move still lands inside, and it also selects for p2.
        #expect(plane.expectAccepted(.drag(from: point(900, 10), to: point(-1.7e308, 1.7e308)), by: "p2") == "["
            + #"{"op":"replace","path":"/rectangles/box-box-box/x","value":0},"#
            + #"{"op":"replace","path":"/rectangles/box-box-box/y","value":648},"#
            + #"{"op":"add","path":"/selections/p2","value":"box-box-box"}]"#)
    }

    @Test func dragWithNothingUnderItsStartIsIllegal() throws {
        var plane = try planePicture(Self.overlapping)
        plane.expectRefused(.drag(from: point(50, 50), to: point(120, 110)), .illegalMove, rule: "nothing-to-drag")
    }

    @Test func aZeroDragSelectsButOnlyOnce() throws {
        var plane = try planePicture(Self.overlapping)
        #expect(plane.expectAccepted(.drag(from: point(120, 110), to: point(120, 110)))
            == #"[{"op":"add","path":"/selections/p1","value":"bot-bot-bot"}]"#)
        plane.expectRefused(.drag(from: point(120, 110), to: point(120, 110)), .illegalMove, rule: "nothing-moved")
    }

    @Test func draggingAnotherPlayersSelectionKeepsTheirs() throws {
        var plane = try planePicture("box-box-box 100 100 150 120 #ff0000 5 p2")
        plane.expectAccepted(.drag(from: point(110, 110), to: point(120, 110)), by: "p1")
        #expect(plane.players(selecting: rectID("box-box-box")) == ["p2", "p1"])
        #expect(plane.rectangles[0].x == 110)
    }

    // MARK: Reset

    @Test func resetClearsEverything() throws {
        var plane = try planePicture(Self.overlapping + " p1")
        let result = plane.apply(.reset, context: MoveContext(player: "p2", time: 0))
        let outcome = try result.get()
        #expect(outcome.diff.encodedOps == "["
            + #"{"op":"replace","path":"/rectangles","value":{}},{"op":"replace","path":"/order","value":[]},"#
            + #"{"op":"replace","path":"/selections","value":{}}]"#)
        #expect(outcome.events == [GameEvent(name: "reset")])
        #expect(plane.publicState == (try planePicture("")).publicState)
        #expect(plane.selectedPlayers.isEmpty)
        plane.expectRefused(.reset, .illegalMove, rule: "plane-empty")
    }

    @Test func resetWithNoSelectionsLeavesSelectionsAlone() throws {
        var plane = try planePicture(Self.overlapping)
        #expect(plane.expectAccepted(.reset)
            == #"[{"op":"replace","path":"/rectangles","value":{}},{"op":"replace","path":"/order","value":[]}]"#)
    }

    // MARK: Add

    @Test func addPutsADefaultRectangleFullyInsideAndSelectsIt() throws {
        var plane = try planePicture("", width: 400, height: 300)
        for _ in 0..<200 { plane.expectAccepted(.add(RectangleSpec())) }
        for r in plane.rectangles {
            #expect(r.width == 150 && r.height == 120)
            #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= 400 && r.y + r.height <= 300)
            #expect(r.color.isValid && Rectangle.alphaRange.contains(r.alpha))
        }
        #expect(Set(plane.rectangles.map(\.id)).count == 200)
        #expect(Set(plane.rectangles.map(\.x)).count > 50, "positions should spread")
        #expect(plane.selection(of: "p1") == plane.rectangles.last?.id)
    }

    @Test func addTakesEveryOverride() throws {
        var plane = try planePicture("")
        let ops = plane.expectAccepted(.add(RectangleSpec(x: 1.25, y: 2, width: 30, height: 40.5, r: 1, g: 2, b: 3, alpha: 10)))
        let id = try #require(plane.rectangles.last?.id)
        #expect(ops == "["
            + #"{"op":"add","path":"/rectangles/\#(id)","value":{"x":1.25,"y":2,"width":30,"height":40.5,"r":1,"g":2,"b":3,"alpha":10}},"#
            + #"{"op":"add","path":"/order/-","value":"\#(id)"},{"op":"add","path":"/selections/p1","value":"\#(id)"}]"#)
    }

    @Test func addMixesOverridesWithRandomParts() throws {
        var plane = try planePicture("")
        plane.expectAccepted(.add(RectangleSpec(y: 7, g: 200)))
        let r = try #require(plane.rectangles.last)
        #expect(r.y == 7 && r.color.g == 200 && r.width == 150 && r.height == 120)
    }

    @Test func addMovesARectangleThatSticksOutInside() throws {
        var plane = try planePicture("")
        plane.expectAccepted(.add(RectangleSpec(x: 1000, y: -20, width: 100, height: 50)))
        #expect(plane.rectangles.last.map { ($0.x, $0.y) } ?? (-1, -1) == (924, 0))
        plane.expectAccepted(.add(RectangleSpec(x: 0, y: 0, width: 1024, height: 768)))
        #expect(plane.rectangles.last.map { ($0.x, $0.y) } ?? (-1, -1) == (0, 0))
    }

    /// 979.5619476357873 - 373.6429630261784 + 373.6429630261784 rounds to one ulp above
    /// 979.5619476357873: an origin of (side - size) would stick out by that ulp.
    @Test func aRectangleMovedInsideStaysInsideWhateverTheRounding() throws {
        let side = 979.5619476357873, size = 373.6429630261784
        var plane = try Plane(options: PlaneOptions(width: side, height: side, seed: 1))
        plane.expectAccepted(.add(RectangleSpec(x: 5000, y: 5000, width: size, height: size)))
        let added = try #require(plane.rectangles.last)
        #expect(added.x + added.width <= side && added.y + added.height <= side, "\(added)")
        plane.expectAccepted(.drag(from: point(added.x, added.y), to: point(added.x - 100, added.y - 100)))
        plane.expectAccepted(.drag(from: point(added.x - 100, added.y - 100), to: point(9000, 9000)))
        let dragged = try #require(plane.rectangles.last)
        #expect(dragged.x + dragged.width <= side && dragged.y + dragged.height <= side, "\(dragged)")
    }

    @Test func addRefusesOutOfRangeValues() throws {
        var plane = try planePicture("")
        let bad: [(RectangleSpec, String)] = [
            (RectangleSpec(width: 0), "rectangle-size"), (RectangleSpec(height: -1), "rectangle-size"),
            (RectangleSpec(width: .infinity), "rectangle-size"), (RectangleSpec(height: .nan), "rectangle-size"),
            (RectangleSpec(width: 1024.5), "rectangle-size"), (RectangleSpec(height: 769), "rectangle-size"),
            (RectangleSpec(x: .nan), "not-finite"), (RectangleSpec(y: -.infinity), "not-finite"),
            (RectangleSpec(r: 256), "color-range"), (RectangleSpec(g: -1), "color-range"), (RectangleSpec(b: 1000), "color-range"),
            (RectangleSpec(alpha: 0), "alpha-range"), (RectangleSpec(alpha: 11), "alpha-range"),
        ]
        for (spec, rule) in bad { plane.expectRefused(.add(spec), .badRequest, rule: rule) }
    }

    @Test func aFullPlaneRefusesNewRectangles() throws {
        let table = (0..<Plane.maxRectangles).map { i in
            let id = String(i, radix: 36).leftPadded(to: 9)
            return "\(id.prefix(3))-\(id.dropFirst(3).prefix(3))-\(id.suffix(3)) 0 0 10 10 #000000 1"
        }.joined(separator: "\n")
        var plane = try planePicture(table)
        plane.expectRefused(.add(RectangleSpec()), .illegalMove, rule: "plane-full")
        plane.expectRefused(.doubleTap(point(5, 5)), .illegalMove, rule: "plane-full")
        plane.expectAccepted(.reset)
        plane.expectAccepted(.add(RectangleSpec()))
    }

    // MARK: Colour

    @Test func colorGivesTheSelectionTheGivenColourChangingOnlyWhatDiffers() throws {
        var plane = try planePicture(Self.overlapping + " p1")
        #expect(plane.expectAccepted(.color(RGB(r: 0, g: 10, b: 255)))
            == #"[{"op":"replace","path":"/rectangles/top-top-top/g","value":10}]"#)
        plane.expectRefused(.color(RGB(r: 0, g: 10, b: 255)), .illegalMove, rule: "same-color")
        #expect(plane.rectangles[0].color == RGB(r: 255, g: 0, b: 0))
    }

    @Test func aRandomColourAlwaysChangesTheColour() throws {
        var plane = try planePicture(Self.overlapping + " p1")
        for _ in 0..<50 {
            let before = plane.rectangles[1].color
            let ops = plane.expectAccepted(.color(nil))
            #expect(plane.rectangles[1].color != before && plane.rectangles[1].color.isValid)
            #expect(ops.contains("/rectangles/top-top-top/"))
        }
    }

    @Test func colorNeedsASelectionAndChannelsInRange() throws {
        var plane = try planePicture(Self.overlapping + " p1")
        plane.expectRefused(.color(nil), by: "p2", .illegalMove, rule: "no-selection")
        plane.expectRefused(.color(RGB(r: 1, g: 2, b: 3)), by: "p2", .illegalMove, rule: "no-selection")
        // Malformed beats illegal, as the protocol orders its checks.
        plane.expectRefused(.color(RGB(r: 256, g: 0, b: 0)), by: "p2", .badRequest, rule: "color-range")
        plane.expectRefused(.color(RGB(r: 0, g: 0, b: -1)), .badRequest, rule: "color-range")
    }

    // MARK: Alpha

    @Test func alphaStepsByOneWithinOneToTen() throws {
        var plane = try planePicture("""
            low-low-low 0 0 10 10 #000000 1 p1
            hig-hig-hig 20 20 10 10 #000000 10 p2
            """)
        plane.expectRefused(.alpha(step: -1), by: "p1", .illegalMove, rule: "alpha-bounds")
        plane.expectRefused(.alpha(step: 1), by: "p2", .illegalMove, rule: "alpha-bounds")
        #expect(plane.expectAccepted(.alpha(step: 1), by: "p1") == #"[{"op":"replace","path":"/rectangles/low-low-low/alpha","value":2}]"#)
        #expect(plane.expectAccepted(.alpha(step: -1), by: "p2") == #"[{"op":"replace","path":"/rectangles/hig-hig-hig/alpha","value":9}]"#)
    }

    @Test func alphaNeedsAStepOfOneAndASelection() throws {
        var plane = try planePicture("one-one-one 0 0 10 10 #000000 5 p1")
        for step in [0, 2, -2, Int.max] {
            plane.expectRefused(.alpha(step: step), by: "p1", .badRequest, rule: "alpha-step")
            plane.expectRefused(.alpha(step: step), by: "p2", .badRequest, rule: "alpha-step")
        }
        plane.expectRefused(.alpha(step: 1), by: "p2", .illegalMove, rule: "no-selection")
    }

    // MARK: Leave

    @Test func leaveRemovesOnlyThatPlayersSelection() throws {
        var plane = try planePicture(Self.overlapping + " p1,p2")
        #expect(plane.expectAccepted(.leave, by: "p1") == #"[{"op":"remove","path":"/selections/p1"}]"#)
        #expect(plane.selectedPlayers == ["p2"])
        plane.expectRefused(.leave, by: "p1", .illegalMove, rule: "no-selection")
        plane.expectRefused(.leave, by: "p3", .illegalMove, rule: "no-selection")
    }

    // MARK: Text board

    @Test func textBoardDrawsAMapAndListsRectanglesTopFirst() throws {
        let plane = try planePicture(Self.overlapping + " p1,p2")
        let lines = plane.textBoard()
        #expect(lines[0] == "plane 1024 x 768, 2 rectangles")
        #expect(lines[1] == "+" + String(repeating: "-", count: 48) + "+")
        let map = lines.filter { $0.hasPrefix("|") }
        #expect(map.count == 18 && map.allSatisfy { $0.count == 50 })
        #expect(map.contains { $0.contains("a") } && map.contains { $0.contains("b") })
        #expect(lines.suffix(2) == [
            "b top-top-top x=200 y=150 150x120 #0000FF alpha=7 selected by p1,p2",
            "a bot-bot-bot x=100 y=100 150x120 #FF0000 alpha=5",
        ])
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
