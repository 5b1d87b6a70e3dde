class A {}
class B extends A {}
class C extends Map {}
console.log(A, B, C);
console.log(class {}, [class Named {}]);
class WithStatic { static count = 3; static make() {} }
console.log(WithStatic);
console.log({ cls: A });
