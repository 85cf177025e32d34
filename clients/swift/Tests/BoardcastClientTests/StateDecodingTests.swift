import Testing

@testable import BoardcastClient

/// Typed states decoded from states shaped as PROTOCOL.md shows them.
@Suite struct StateDecodingTests {
    @Test func klondike() throws {
        let state = try JSONValue(parsing: """
            {"draw":1, "stock":["??","??"], "waste":["7H"],
             "foundations":[[],[],[],[]],
             "tableau":[["KS"],["??","4D"],["??","??","9C"],["??","??","??","2H"],["??","??","??","??","TD"],["??","??","??","??","??","AS"],["??","??","??","??","??","??","QC"]],
             "moves":0, "score":0, "status":"playing"}
            """)
        let k = try state.decode(KlondikeState.self)
        #expect(k.draw == 1)
        #expect(k.stock == ["??", "??"])
        #expect(k.waste.last == "7H")
        #expect(k.foundations.count == 4)
        #expect(k.tableau.count == 7)
        #expect(k.tableau[2] == ["??", "??", "9C"])
        #expect(!k.isWon)
        #expect(try JSONValue(encoding: k) == state)
    }

    @Test func race() throws {
        let table = #"{"draw":1,"stock":["??"],"waste":[],"foundations":[["AS"],[],[],[]],"tableau":[["KS"],[],[],[],[],[],[]],"moves":3,"score":10,"status":"playing"}"#
        let state = try JSONValue(parsing: #"{"seats":2,"status":"playing","tables":{"p1":\#(table),"p2":\#(table)},"finished":[]}"#)
        let r = try state.decode(RaceState.self)
        #expect(r.seats == 2)
        #expect(r.status == "playing")
        #expect(r.tables["p2"]?.foundations[0] == ["AS"])
        #expect(r.finished.isEmpty)
    }

    @Test func plane() throws {
        let state = try JSONValue(parsing: """
            {"width":1024, "height":768,
             "rectangles":{"a1b-2c3-d4e":{"x":10.5,"y":20,"width":150,"height":120,
                                          "r":255,"g":128,"b":0,"alpha":7}},
             "order":["a1b-2c3-d4e"],
             "selections":{"p1":"a1b-2c3-d4e"}}
            """)
        let p = try state.decode(PlaneState.self)
        #expect(p.width == 1024)
        #expect(p.rectangles["a1b-2c3-d4e"]?.x == 10.5)
        #expect(p.rectangles["a1b-2c3-d4e"]?.alpha == 7)
        #expect(p.selections["p1"] == "a1b-2c3-d4e")
        #expect(p.topmost(x: 160.5, y: 140) == "a1b-2c3-d4e")  // the corner is inside
        #expect(p.topmost(x: 161, y: 140) == nil)
    }

    @Test func fourInARow() throws {
        let state = try JSONValue(parsing: """
            {"columns":[[],["p1"],["p2","p1"],[],[],[],[]], "rows":6,
             "turn":"p1", "first":"p1", "status":"playing",
             "winner":null, "line":null, "moves":3}
            """)
        let f = try state.decode(FourInARowState.self)
        #expect(f.columns[2] == ["p2", "p1"])
        #expect(f.turn == "p1")
        #expect(f.winner == nil)
        #expect(f.line == nil)
        #expect(f.clocks == nil)
        #expect(f.openColumns == [0, 1, 2, 3, 4, 5, 6])
        #expect(f.disc(column: 2, row: 1) == "p1")
        #expect(!f.hasEnded)
    }

    @Test func fourInARowWonWithClocks() throws {
        let state = try JSONValue(parsing: """
            {"columns":[["p1","p1","p1","p1"],["p2","p2","p2"],["p2","p1","p2","p1","p2","p1"],[],[],[],[]], "rows":6,
             "turn":null, "first":"p1", "status":"won", "winner":"p1", "line":[[0,0],[0,1],[0,2],[0,3]], "moves":13,
             "clocks":{"p1":293500, "p2":300000, "running":null, "since":"2026-11-25T21:40:07.250Z"}}
            """)
        let f = try state.decode(FourInARowState.self)
        #expect(f.hasEnded)
        #expect(f.winner == "p1")
        #expect(f.line == [[0, 0], [0, 1], [0, 2], [0, 3]])
        #expect(f.clocks?.p1 == 293500)
        #expect(f.clocks?.running == nil)
        #expect(f.openColumns == [0, 1, 3, 4, 5, 6])
    }

    @Test func ticTacToe() throws {
        let state = try JSONValue(parsing: #"{"cells":[null,"p1",null, null,"p2",null, null,null,null],"turn":"p1", "first":"p1", "status":"playing", "winner":null, "line":null, "moves":2}"#)
        let t = try state.decode(TicTacToeState.self)
        #expect(t.cells[1] == "p1")
        #expect(t.cells[0] == nil)
        #expect(t.moves == 2)
    }
}
