import { describeStress } from './stress-scenario.js'

describeStress(true, 'a composed cache + retry stack')
