// `#missing in obj` names a private field that no enclosing class declares: the script
// does not compile, nothing of it runs, and the SyntaxError ends the run with status 1.
console.log('never printed');
class Account {
  #balance = 0;
  static isAccount(obj) {
    return #missing in obj;
  }
}
console.log(Account.isAccount({}));
