'use strict';
// A separate script for page.html: a global object with methods.
var PageLib = {
  words: 'the quick brown fox jumps over the lazy dog'.split(' '),
  checksum: function (words) {
    let h = 0;
    words.forEach((w) => { for (let i = 0; i < w.length; i++) h = (h * 33 + w.charCodeAt(i)) >>> 0; });
    return h & 0xff;
  },
};
