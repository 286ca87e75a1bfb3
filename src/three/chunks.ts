/**
 * GLSL replacing three.js's skinning shader chunks (`skinning_pars_vertex`, `skinbase_vertex`,
 * `skinnormal_vertex`, `skinning_vertex`), WebGL 2 (GLSL ES 3.0): the shared functions and pieces
 * every method's {@link GlslKernel} builds on, and the kernels of LBS (for more than 4
 * influences), DQS and CoR. Direct Delta Mush and skinning templates bring theirs
 * (`methods/<id>/three-glsl.ts`).
 *
 * Joint data come from `corskinJoints`, a float RGBA texture with {@link TEXELS_PER_JOINT}
 * texels per joint, filled on the CPU once per frame and mesh (`writeJointTexture`), in
 * the mesh's own (bind) space: the skinning matrix `M_j = [L_j | τ_j]` as three rows, then the
 * unit quaternion of its proper rotation R_j. When some `M_j` has scale, shear or reflection
 * (`corskinStretch` = 1), the shaders run corskin's two-phase skinning (the CPU's
 * `two-phase.ts`): the blended stretch `K̄ = Σ w_j R_jᵀ L_j` about a per-vertex center c (the
 * vertex for DQS, its center of rotation for CoR), then the rigid blend of `[R_j | M_j(c) − c]`.
 *
 * Antipodality: quaternion signs are fixed against the influence with the largest weight (ties
 * to the smaller joint index), the rule of every corskin kernel; zero weights contribute
 * nothing. Morph targets compose: three's morph chunks run before these.
 *
 * @module
 */

import { COR_ATTRIBUTE_THREE } from '../io/schema.js';
import { TEXELS_PER_JOINT, TEXTURE_WIDTH, type GlslKernel, type KernelOptions } from './kernel.js';

export { TEXELS_PER_JOINT };

const pars = (kernel: GlslKernel, o: KernelOptions) => /* glsl */ `
#ifdef USE_SKINNING
uniform highp sampler2D corskinJoints;
uniform float corskinStretch;
${corskinInfluenceAttributes(o)
  .map((name) => `in vec4 ${name};`)
  .join('\n')}
vec4 corskinFetch( const in float joint, const in int k ) {
  int size = textureSize( corskinJoints, 0 ).x;
  int i = int( joint ) * ${TEXELS_PER_JOINT} + k;
  return texelFetch( corskinJoints, ivec2( i % size, i / size ), 0 );
}
vec3 corskinRotate( const in vec4 q, const in vec3 v ) {
  return v + 2.0 * cross( q.xyz, cross( q.xyz, v ) + q.w * v );
}
vec3 corskinTransform( const in float joint, const in vec3 p ) {
  vec4 p1 = vec4( p, 1.0 );
  return vec3( dot( corskinFetch( joint, 0 ), p1 ), dot( corskinFetch( joint, 1 ), p1 ), dot( corskinFetch( joint, 2 ), p1 ) );
}
mat3 corskinLinear( const in float joint ) {
  return transpose( mat3( corskinFetch( joint, 0 ).xyz, corskinFetch( joint, 1 ).xyz, corskinFetch( joint, 2 ).xyz ) );
}
mat3 corskinQuatMatrix( const in vec4 q ) {
  return mat3( corskinRotate( q, vec3( 1, 0, 0 ) ), corskinRotate( q, vec3( 0, 1, 0 ) ), corskinRotate( q, vec3( 0, 0, 1 ) ) );
}
// det(A)·A⁻ᵀ n with the sign of det(A): the normal transform of A, up to length.
vec3 corskinCofactor( const in mat3 a, const in vec3 n ) {
  mat3 c = mat3( cross( a[1], a[2] ), cross( a[2], a[0] ), cross( a[0], a[1] ) );
  return ( dot( a[0], c[0] ) < 0.0 ? -1.0 : 1.0 ) * ( c * n );
}
vec3 corskinNormalize( const in vec3 v ) {
  float l = length( v );
  return l > 0.0 ? v / l : v;
}
// Texel i of a ${TEXTURE_WIDTH}-wide data texture (no integer division).
ivec2 corskinTexel( const in int i ) {
  return ivec2( i & ${TEXTURE_WIDTH - 1}, i >> ${Math.log2(TEXTURE_WIDTH)} );
}
${kernel.pars?.(o) ?? ''}
#endif
`;

/** The influences a vertex reads: 4 per set ({@link KernelOptions.influenceSets}). */
export const influenceCount = (o: KernelOptions) => 4 * o.influenceSets;

/**
 * The vertex attributes of corskin's influence sets, `corskinIndex0`, `corskinWeight0`, … (none
 * with one set: three's `skinIndex`/`skinWeight`).
 */
export const corskinInfluenceAttributes = (o: { influenceSets: number }): string[] =>
  o.influenceSets > 1
    ? Array.from({ length: o.influenceSets }, (_, s) => [`corskinIndex${s}`, `corskinWeight${s}`]).flat()
    : [];

/** Influences into csJ/csW, the pivot, the signed weights csS and quaternions csQs. */
export const gather = (o: KernelOptions) => /* glsl */ `
  float csJ[${influenceCount(o)}];
  float csW[${influenceCount(o)}];
${
  o.influenceSets > 1
    ? `  for ( int k = 0; k < 4; k++ ) {
${Array.from({ length: o.influenceSets }, (_, s) => `    csJ[k + ${4 * s}] = corskinIndex${s}[k]; csW[k + ${4 * s}] = corskinWeight${s}[k];`).join('\n')}
  }`
    : `  for ( int k = 0; k < 4; k++ ) { csJ[k] = skinIndex[k]; csW[k] = skinWeight[k]; }`
}`;

/**
 * The joints' QLERP (`skinbase_vertex`): influences, the pivot (largest weight), signed weights
 * csS, quaternions csQs, their normalised blend csQ (length csLen) and the blended stretch csK
 * (the identity while every skinning matrix is rigid).
 */
export const jointBlend = (o: KernelOptions) => /* glsl */ `${gather(o)}
  vec4 csQ = vec4( 0.0 );
  mat3 csK = mat3( 0.0 );
  int csP = 0;
  for ( int k = 1; k < ${influenceCount(o)}; k++ ) {
    if ( csW[k] > csW[csP] || ( csW[k] == csW[csP] && csJ[k] < csJ[csP] ) ) csP = k;
  }
  vec4 csPivot = corskinFetch( csJ[csP], 3 );
  vec4 csQs[${influenceCount(o)}];
  float csS[${influenceCount(o)}];
  for ( int k = 0; k < ${influenceCount(o)}; k++ ) {
    csQs[k] = corskinFetch( csJ[k], 3 );
    csS[k] = dot( csQs[k], csPivot ) < 0.0 ? -csW[k] : csW[k];
    csQ += csS[k] * csQs[k];
    if ( corskinStretch > 0.5 && csW[k] != 0.0 ) csK += csW[k] * ( transpose( corskinQuatMatrix( csQs[k] ) ) * corskinLinear( csJ[k] ) );
  }
  float csLen = length( csQ );
  csQ /= csLen;
  if ( corskinStretch < 0.5 ) csK = mat3( 1.0 );`;

/** `skinnormal_vertex` of an affine map x ↦ csL x + csT per vertex (its cofactor for the normal). */
export const affineNormal = () => /* glsl */ `
  objectNormal = corskinNormalize( corskinCofactor( csL, objectNormal ) );
  #ifdef USE_TANGENT
    objectTangent = corskinNormalize( csL * objectTangent );
  #endif`;

/** `skinning_vertex` of an affine map x ↦ csL x + csT per vertex. */
export const affinePosition = () => /* glsl */ `
  transformed = csL * transformed + csT;`;

/**
 * `skinnormal_vertex` after {@link jointBlend}: the stretch csK's cofactor, then the rotation
 * `rotate(q)` (a GLSL expression of the vector `v`; DQS and CoR: `corskinRotate( csQ, v )`).
 */
export const rotatedNormal = (rotate: (v: string) => string) => /* glsl */ `
  objectNormal = ${rotate('corskinNormalize( corskinCofactor( csK, objectNormal ) )')};
  #ifdef USE_TANGENT
    objectTangent = ${rotate('corskinNormalize( csK * objectTangent )')};
  #endif`;

/**
 * `skinning_vertex` of DQS after {@link jointBlend}, with the vertex as center: the dual
 * quaternions of `[R_j | M_j(v) − v]` blended (dual part csD), and v moved by the blend's
 * translation `t = 2 (d ⊗ r*)`.
 */
export const dqsPosition = (o: KernelOptions) => /* glsl */ `
  vec4 csD = vec4( 0.0 );
  for ( int k = 0; k < ${influenceCount(o)}; k++ ) {
    if ( csW[k] == 0.0 ) continue;
    vec3 m = corskinTransform( csJ[k], transformed ) - transformed;
    vec4 q = csQs[k];
    csD += csS[k] * 0.5 * vec4( q.w * m + cross( m, q.xyz ), -dot( m, q.xyz ) );
  }
  csD /= csLen;
  transformed += 2.0 * ( csQ.w * csD.xyz - csD.w * csQ.xyz + cross( csQ.xyz, csD.xyz ) );`;

const byQuaternion = (v: string) => `corskinRotate( csQ, ${v} )`;

/** Linear blend skinning of up to the 16 largest influences (three skins 4): csL = Σ w_j L_j, csT = Σ w_j τ_j. */
export const LBS_GLSL: GlslKernel = {
  base: (o) => /* glsl */ `${gather(o)}
  mat3 csL = mat3( 0.0 );
  vec3 csT = vec3( 0.0 );
  for ( int k = 0; k < ${influenceCount(o)}; k++ ) {
    if ( csW[k] == 0.0 ) continue;
    csL += csW[k] * corskinLinear( csJ[k] );
    csT += csW[k] * corskinTransform( csJ[k], vec3( 0.0 ) );
  }`,
  normal: affineNormal,
  position: affinePosition,
};

/** Dual quaternion skinning (Kavan et al. 2008) with corskin's two-phase stretch. */
export const DQS_GLSL: GlslKernel = {
  base: jointBlend,
  normal: () => rotatedNormal(byQuaternion),
  position: dqsPosition,
};

/**
 * Optimized centers of rotation (Le & Hodgins 2016, Algorithm 1): the vertex rotated by the QLERP
 * about its center of rotation c (attribute `_center_of_rotation`), moved to where LBS takes c.
 */
export const COR_GLSL: GlslKernel = {
  pars: () => `in vec3 ${COR_ATTRIBUTE_THREE};`,
  base: (o) => /* glsl */ `${jointBlend(o)}
  vec3 csC = ${COR_ATTRIBUTE_THREE};
  vec3 csCp = vec3( 0.0 ); // Σ w_j M_j(c): linear blend skinning of the center of rotation
  for ( int k = 0; k < ${influenceCount(o)}; k++ ) if ( csW[k] != 0.0 ) csCp += csW[k] * corskinTransform( csJ[k], csC );`,
  normal: () => rotatedNormal(byQuaternion),
  position: () => /* glsl */ `
  transformed = corskinRotate( csQ, csK * ( transformed - csC ) ) + csCp;`,
};

const skinning = (body: string) => `
#ifdef USE_SKINNING
${body}
#endif
`;

/**
 * Replaces three's skinning chunks in a vertex shader source with a kernel's. `skinbase_vertex`
 * runs before `skinnormal_vertex` and `skinning_vertex` in every built-in material, so the blend
 * happens once; `skinning_vertex` comes after three's morph targets.
 */
export function patchVertexShader(source: string, kernel: GlslKernel, o: KernelOptions): string {
  return source
    .replace('#include <skinning_pars_vertex>', pars(kernel, o))
    .replace('#include <skinbase_vertex>', skinning(kernel.base(o)))
    .replace('#include <skinnormal_vertex>', skinning(kernel.normal(o)))
    .replace('#include <skinning_vertex>', skinning(kernel.position(o)));
}
