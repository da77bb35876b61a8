'use strict';
// A module loaded with require(): a named export, an anonymous function
// stored in an object, and a class with a method and a getter.

function mix(h, v) {
  for (let i = 0; i < 64; i++) h = (Math.imul(h, 31) + v + i) | 0;
  return h;
}

const helpers = {
  // An anonymous function: the profile names it "".
  fold: function (values) {
    let h = 17;
    for (const v of values) h = mix(h, v);
    return h;
  },
};

class Table {
  constructor(n) {
    this.rows = Array.from({ length: n }, (_, i) => ({ id: i, name: 'row' + i }));
  }
  get size() { return this.rows.length; }
  serialise() { return JSON.stringify(this.rows); }
}

module.exports = { mix, helpers, Table };
